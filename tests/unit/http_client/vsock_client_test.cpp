// The client's vsock transport (docs/ra-tls.md "vsock"): vsock:// URLs, the StreamBridge that hands
// libcurl connections of the client's own making (relayed to a loopback TCP server standing in for
// the AF_VSOCK stream), its refusal of other processes, and the HttpClient's vsock rules.
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "a3s/power/error.h"
#include "http_client/curl_handle.h"
#include "http_client/http_client.h"
#include "http_client/server_route.h"
#include "http_client/server_url.h"
#include "http_client/stream_bridge.h"
#include "support/fake_http_server.h"

namespace a3s::power::client::vsock_test {
namespace {

using testing::HttpRoute;
using testing::RoutedHttpServer;

void expect_invalid_url(const std::string& url, const std::string& fragment) {
  try {
    ServerUrl::parse(url);
    FAIL() << "accepted " << url;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument) << url;
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << url << ": " << e.what();
  }
}

TEST(VsockUrl, CidAndPortAreDecimal32BitNumbers) {
  const ServerUrl u = ServerUrl::parse("vsock://3:5000");
  EXPECT_TRUE(u.is_vsock());
  EXPECT_EQ(u.scheme(), "vsock");
  EXPECT_EQ(u.vsock_cid(), 3u);
  EXPECT_EQ(u.vsock_port(), 5000u);
  EXPECT_EQ(u.host(), "3");
  EXPECT_EQ(u.display(), "vsock://3:5000");
  EXPECT_EQ(u.endpoint("/v1/models"), "vsock://3:5000/v1/models");
  EXPECT_FALSE(u.is_local()) << "CID 3 is another VM: reached through the host";
  const ServerUrl big = ServerUrl::parse("VSOCK://1:4294967294/api/");
  EXPECT_EQ(big.vsock_port(), 4294967294u);
  EXPECT_EQ(big.prefix(), "/api");
  EXPECT_TRUE(big.is_local()) << "CID 1 is this machine's vsock loopback";
  EXPECT_FALSE(ServerUrl::parse("https://127.0.0.1:8443").is_vsock());
  EXPECT_TRUE(ServerUrl::parse("http://127.0.0.1:1").is_local());

  for (const char* bad : {"vsock://3", "vsock://:5000", "vsock://3:", "vsock://x:5000", "vsock://3:50a",
                          "vsock://3:4294967295", "vsock://4294967295:1", "vsock://3:5000:1", "vsock://-3:5000",
                          "vsock://3:99999999999"}) {
    expect_invalid_url(bad, "vsock://CID:PORT");
  }
  expect_invalid_url("vsock://3:5000/?x=1", "query");
  expect_invalid_url("vsock://alice@3:5000", "credentials");
}

// A GET through `bridge` (libcurl connects to its abstract socket); "" when the transfer failed.
std::string get_through(const StreamBridge& bridge, const std::string& path, bool reuse, CURL* c) {
  TransferOptions o;
  o.url = "http://vsock-3" + path;
  o.protocols = "http";
  o.abstract_unix_socket = bridge.name();
  o.no_proxy = true;
  o.timeout_ms = 10'000;
  o.fresh_connection = !reuse;
  set_transfer_options(c, o);
  std::string body;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, +[](char* d, size_t s, size_t n, void* u) {
    static_cast<std::string*>(u)->append(d, s * n);
    return s * n;
  });
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  return curl_easy_perform(c) == CURLE_OK ? body : std::string();
}

int connect_tcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw Error(codes::kServerUnreachable, "stand-in refused");
  }
  return fd;
}

TEST(StreamBridge, RelaysEachLibcurlConnectionToAStreamOfTheConnector) {
  RoutedHttpServer server({{"/health", HttpRoute{200, "application/json", {}, "{\"status\":\"ok\"}"}},
                           {"/big", HttpRoute{200, "text/plain", {}, std::string(300'000, 'x')}}});
  std::atomic<int> connects{0};
  StreamBridge bridge(
      [&] {
        ++connects;
        return connect_tcp(server.port());
      },
      connect_tcp(server.port()));
  EXPECT_EQ(bridge.name().rfind("a3s-power-", 0), 0u);
  CurlEasy curl = make_curl_easy();
  EXPECT_EQ(get_through(bridge, "/health", false, curl.get()), "{\"status\":\"ok\"}");
  EXPECT_EQ(connects.load(), 0) << "the first connection uses the stream connected up front";
  // Larger than the relay's buffers, in both directions' pace.
  EXPECT_EQ(get_through(bridge, "/big", false, curl.get()), std::string(300'000, 'x'));
  EXPECT_EQ(get_through(bridge, "/health", false, curl.get()), "{\"status\":\"ok\"}");
  EXPECT_EQ(connects.load(), 2) << "every further libcurl connection gets a stream of its own";
  EXPECT_EQ(server.targets(), (std::vector<std::string>{"/health", "/big", "/health"}));
  EXPECT_EQ(bridge.take_connect_error(), "");
}

TEST(StreamBridge, AConnectorFailureClosesTheConnectionAndIsReported) {
  StreamBridge bridge([]() -> int { throw Error(codes::kServerUnreachable, "cannot connect to vsock://7:9: nope"); },
                      -1);
  CurlEasy curl = make_curl_easy();
  EXPECT_EQ(get_through(bridge, "/health", false, curl.get()), "");
  EXPECT_EQ(bridge.take_connect_error(), "cannot connect to vsock://7:9: nope");
  EXPECT_EQ(bridge.take_connect_error(), "") << "taken once";
}

TEST(StreamBridge, AnotherProcessIsClosedBeforeAnyStreamOpens) {
  RoutedHttpServer server({{"/health", HttpRoute{200, "application/json", {}, "{}"}}});
  std::atomic<int> connects{0};
  StreamBridge bridge(
      [&] {
        ++connects;
        return connect_tcp(server.port());
      },
      -1);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another process that found the abstract name (e.g. in /proc/net/unix).
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path + 1, bridge.name().data(), bridge.name().size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + bridge.name().size());
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0) ::_exit(2);
    const char req[] = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    // The bridge may already have closed it: MSG_NOSIGNAL keeps that an EPIPE rather than a SIGPIPE.
    (void)!::send(fd, req, sizeof req - 1, MSG_NOSIGNAL);
    char c;
    ::_exit(::read(fd, &c, 1) <= 0 ? 0 : 1);  // closed (or reset) without an answer
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(connects.load(), 0) << "no stream was opened for another process";
  EXPECT_TRUE(server.targets().empty());
}

TEST(VsockClient, PlainHttpOnlyToCidOneAndNoCaFile) {
  auto make = [](const std::string& url, std::string pin, std::string ca) {
    ClientOptions o{.url = ServerUrl::parse(url), .api_key = ""};
    o.pinned_spki = std::move(pin);
    o.ca_file = std::move(ca);
    return HttpClient(std::move(o));
  };
  try {
    make("vsock://3:5000", "", "");
    FAIL() << "plain HTTP to CID 3";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("passes through the host"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make("vsock://3:5000", "", "/etc/ssl/certs/ca-certificates.crt"), Error);
  const std::string pin = "sha256//" + std::string(43, 'A') + "=";
  EXPECT_NO_THROW(make("vsock://3:5000", pin, ""));
  EXPECT_NO_THROW(make("vsock://1:5000", "", ""));
}

TEST(VsockClient, AnUnreachableVsockServerIsServerUnreachableNamingIt) {
  // CID 1 with nothing listening: refused, timed out (no vsock loopback) or no vsock transport at all,
  // depending on the kernel; always server_unreachable, before libcurl starts.
  ClientOptions o{.url = ServerUrl::parse("vsock://1:4000000000"), .api_key = ""};
  o.connect_timeout_ms = 300;
  HttpClient http(std::move(o));
  try {
    http.get("/health");
    FAIL() << "connected to nothing";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kServerUnreachable) << e.what();
    EXPECT_NE(std::string(e.what()).find("vsock://1:4000000000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace a3s::power::client::vsock_test

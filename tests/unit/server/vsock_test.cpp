// The vsock listener (vsock_port, docs/ra-tls.md "vsock"). This kernel has no vsock loopback, so the
// transport is tested through the same stream abstraction: the server's vsock listener adopts an
// AF_UNIX listening socket (Server::adopt_vsock_listener) and serves every route over it, as plain HTTP
// and as RA-TLS whose attestation binds the connection's key; a connected socketpair is served by
// HttpServer::serve_fd, plain and TLS; and a real AF_VSOCK socket is bound and listened on where the
// kernel has AF_VSOCK (skipped with the reason otherwise). The bind policy covers vsock.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "base/hex.h"
#include "server/http_server.h"
#include "server/router.h"
#include "server/server.h"
#include "support/fake_runtime.h"
#include "support/temp_dir.h"

namespace a3s::power::server::vsock_test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using Protocol = asio::generic::stream_protocol;
using nlohmann::json;
using testing::TempDir;

constexpr const char* kUserKey = "sk-vsock-user";
constexpr const char* kAdminKey = "sk-vsock-admin";

config::ApiKey key_for(const std::string& raw, const std::string& identity) {
  config::ApiKey k;
  k.identity = identity;
  unsigned int len = 0;
  EVP_Digest(raw.data(), raw.size(), k.sha256.data(), &len, EVP_sha256(), nullptr);
  return k;
}

// An AF_UNIX socket listening on `path`: the stand-in for AF_VSOCK.
int unix_listener(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    ADD_FAILURE() << "cannot listen on " << path << ": " << std::strerror(errno);
  }
  return fd;
}

struct Answer {
  int status = 0;
  std::string content_type;
  std::string body;
  std::string certificate_der;  // TLS: the peer's leaf certificate
  std::string error;            // the exchange failed
};

std::string spki_sha256_hex(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  X509* cert = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
  if (cert == nullptr) return "";
  unsigned char* spki = nullptr;
  const int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &spki);
  std::array<uint8_t, 32> digest{};
  unsigned int len = 0;
  EVP_Digest(spki, static_cast<size_t>(n), digest.data(), &len, EVP_sha256(), nullptr);
  OPENSSL_free(spki);
  X509_free(cert);
  return to_hex(digest);
}

// One request on a fresh connection to `ep` (TCP or AF_UNIX), in TLS 1.3 without certificate checks
// when `tls` (RA-TLS: the test checks the key itself), with the user's key.
Answer exchange(const Protocol::endpoint& ep, bool tls, const std::string& method, const std::string& target,
                const std::string& body = {}, const std::string& key = kUserKey) {
  Answer a;
  try {
    asio::io_context ioc;
    http::request<http::string_body> req{http::string_to_verb(method), target, 11};
    req.set(http::field::host, "localhost");
    req.set(http::field::authorization, std::string("Bearer ") + key);
    req.set(http::field::connection, "close");
    if (!body.empty()) {
      req.set(http::field::content_type, "application/json");
      req.body() = body;
    }
    req.prepare_payload();
    http::response<http::string_body> res;
    beast::flat_buffer buffer;
    if (tls) {
      ssl::context ctx(ssl::context::tls_client);
      ctx.set_verify_mode(ssl::verify_none);
      beast::ssl_stream<Protocol::socket> stream(ioc, ctx);
      beast::get_lowest_layer(stream).connect(ep);
      stream.handshake(ssl::stream_base::client);
      if (X509* cert = SSL_get0_peer_certificate(stream.native_handle())) {
        unsigned char* der = nullptr;
        const int n = i2d_X509(cert, &der);
        a.certificate_der.assign(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
        OPENSSL_free(der);
      }
      http::write(stream, req);
      http::read(stream, buffer, res);
    } else {
      Protocol::socket socket(ioc);
      socket.connect(ep);
      http::write(socket, req);
      http::read(socket, buffer, res);
    }
    a.status = static_cast<int>(res.result_int());
    a.content_type = std::string(res[http::field::content_type]);
    a.body = res.body();
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

// One request of every route (RouteId), in the order the routes are declared.
struct RouteRequest {
  RouteId id;
  std::string method, target, body;
  std::string key = kUserKey;
};

std::vector<RouteRequest> every_route() {
  const json chat = {{"model", "fake"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  const json anthropic = {{"model", "fake"}, {"max_tokens", 8}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  json streamed = chat;
  streamed["stream"] = true;
  std::vector<RouteRequest> r = {
      {RouteId::Health, "GET", "/health", ""},
      {RouteId::Metrics, "GET", "/metrics", ""},
      {RouteId::ChatCompletions, "POST", "/v1/chat/completions", chat.dump()},
      {RouteId::ChatCompletions, "POST", "/v1/chat/completions", streamed.dump()},  // SSE, chunked
      {RouteId::Completions, "POST", "/v1/completions", json{{"model", "fake"}, {"prompt", "hi"}}.dump()},
      {RouteId::Embeddings, "POST", "/v1/embeddings", json{{"model", "fake"}, {"input", "hi"}}.dump()},
      {RouteId::Messages, "POST", "/v1/messages", anthropic.dump()},
      {RouteId::CountTokens, "POST", "/v1/messages/count_tokens", json{{"model", "fake"}, {"messages", anthropic["messages"]}}.dump()},
      {RouteId::Responses, "POST", "/v1/responses", json{{"model", "fake"}, {"input", "hi"}}.dump()},
      {RouteId::ListModels, "GET", "/v1/models", ""},
      {RouteId::GetModel, "GET", "/v1/models/fake", ""},
      {RouteId::DeleteModel, "DELETE", "/v1/models/fake", "", kAdminKey},
      {RouteId::PullModel, "POST", "/v1/models/pull", json{{"model", "https://example.invalid/m.gguf"}}.dump(), kAdminKey},
      {RouteId::Attestation, "GET", "/v1/attestation?nonce=" + std::string(64, 'a') + "&model=fake", ""},
  };
  return r;
}

// A body's shape, without the values that differ per request (ids, times).
json shape_of(const Answer& a) {
  if (a.content_type.rfind("application/json", 0) != 0) return a.content_type;
  const json j = json::parse(a.body, nullptr, false);
  if (!j.is_object()) return "not an object";
  json keys = json::array();
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys;
}

class VsockStandIn : public ::testing::Test {
 protected:
  // A server with the fake model "fake" whose vsock listener is an AF_UNIX socket; with `ratls`, in TEE
  // mode (development, simulated evidence) with RA-TLS on its TLS port and on vsock.
  void start(bool ratls) {
    config::Config cfg;
    cfg.port = 0;
    cfg.vsock_port = 0;
    cfg.api_keys = {key_for(kUserKey, "user")};
    cfg.admin_api_keys = {key_for(kAdminKey, "admin")};
    if (ratls) {
      cfg.tee_mode = true;
      cfg.tee_policy = TeePolicy::kDevelopment;
      cfg.tee_device_root = dir_.path();  // no attestation device: simulated evidence
      cfg.ratls = true;
      cfg.tls_port = 0;
    }
    testing::FakeOptions fo;
    fo.sha256 = std::string(64, 'b');  // measured, as TEE mode needs
    auto reg = std::make_shared<runtime::ModelRegistry>(
        [fo](const std::string& name, const std::string&) { return std::make_shared<testing::FakeRuntime>(name, fo); },
        nullptr);
    reg->add_path("fake", "/fake/fake.gguf");
    server_ = std::make_unique<Server>(cfg, reg);
    socket_path_ = dir_.file("vsock.sock");
    server_->adopt_vsock_listener(unix_listener(socket_path_));
    port_ = server_->start();
  }
  void TearDown() override {
    if (server_) {
      server_->request_shutdown();
      server_->wait();
    }
  }
  Protocol::endpoint vsock() const { return Protocol::endpoint(asio::local::stream_protocol::endpoint(socket_path_)); }
  Protocol::endpoint tcp(int port) const {
    return Protocol::endpoint(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port)));
  }

  // Every route answers over the stand-in as over TCP: same status, content type and body shape.
  void expect_every_route_as_over_tcp(bool tls) {
    const std::vector<RouteRequest> routes = every_route();
    std::set<RouteId> covered;
    for (const RouteRequest& r : routes) covered.insert(r.id);
    ASSERT_EQ(covered.size(), static_cast<size_t>(RouteId::Attestation) + 1) << "a route is missing from the table";
    for (const RouteRequest& r : routes) {
      SCOPED_TRACE(r.method + " " + r.target);
      const Answer over_tcp = exchange(tcp(port_), false, r.method, r.target, r.body, r.key);
      const Answer over_vsock = exchange(vsock(), tls, r.method, r.target, r.body, r.key);
      ASSERT_TRUE(over_vsock.error.empty()) << over_vsock.error;
      ASSERT_NE(over_tcp.status, 0) << over_tcp.error;
      EXPECT_EQ(over_vsock.status, over_tcp.status) << over_vsock.body;
      EXPECT_EQ(over_vsock.content_type, over_tcp.content_type);
      EXPECT_EQ(shape_of(over_vsock), shape_of(over_tcp)) << over_vsock.body;
      if (r.id == RouteId::ChatCompletions && r.body.find("\"stream\":true") != std::string::npos) {
        EXPECT_NE(over_vsock.body.find("data: [DONE]"), std::string::npos) << over_vsock.body;
      }
    }
  }

  TempDir dir_;
  std::unique_ptr<Server> server_;
  std::string socket_path_;
  uint16_t port_ = 0;
};

TEST_F(VsockStandIn, ServesEveryRouteAsTheTcpListenerDoes) {
  start(/*ratls=*/false);
  EXPECT_EQ(server_->vsock_port(), 0u) << "an adopted listener has no vsock port of its own";
  expect_every_route_as_over_tcp(/*tls=*/false);
  const Answer chat = exchange(vsock(), false, "POST", "/v1/chat/completions",
                               json{{"model", "fake"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}}.dump());
  ASSERT_EQ(chat.status, 200) << chat.body << chat.error;
  EXPECT_EQ(json::parse(chat.body)["choices"][0]["message"]["content"], testing::FakeOptions{}.output);
  // The API key is needed over vsock as over TCP.
  EXPECT_EQ(exchange(vsock(), false, "GET", "/v1/models", "", "sk-wrong").status, 401);
}

TEST_F(VsockStandIn, AForeignHostNameIsRefusedOverTcpOnlyABrowserCannotReachVsock) {
  start(/*ratls=*/false);
  // The loopback TCP listener keeps refusing a foreign Host (DNS rebinding); over vsock no page can
  // send one, and clients name the vsock address (Host: vsock-CID).
  auto with_host = [](const Protocol::endpoint& ep, const std::string& host) {
    asio::io_context ioc;
    Protocol::socket socket(ioc);
    socket.connect(ep);
    http::request<http::empty_body> req{http::verb::get, "/v1/models", 11};
    req.set(http::field::host, host);
    req.set(http::field::authorization, std::string("Bearer ") + kUserKey);
    http::write(socket, req);
    http::response<http::string_body> res;
    beast::flat_buffer buffer;
    http::read(socket, buffer, res);
    return res.result_int();
  };
  EXPECT_EQ(with_host(tcp(port_), "evil.example"), 403u);
  EXPECT_EQ(with_host(vsock(), "vsock-3"), 200u);
}

TEST_F(VsockStandIn, RatlsOverVsockServesEveryRouteAndItsAttestationBindsTheConnectionKey) {
  start(/*ratls=*/true);
  ASSERT_TRUE(server_->tls_port().has_value());
  expect_every_route_as_over_tcp(/*tls=*/true);

  const std::string nonce(64, 'c');
  const Answer a = exchange(vsock(), true, "GET", "/v1/attestation?nonce=" + nonce + "&model=fake");
  ASSERT_EQ(a.status, 200) << a.body << a.error;
  ASSERT_FALSE(a.certificate_der.empty());
  const json claims = json::parse(a.body)["claims"];
  EXPECT_EQ(claims["nonce"], nonce);
  EXPECT_EQ(claims["tls"]["spki_sha256"], spki_sha256_hex(a.certificate_der)) << "the vsock connection's key";
  // The same RA-TLS identity as the TCP RA-TLS listener.
  const Answer over_tls_port = exchange(tcp(*server_->tls_port()), true, "GET", "/health");
  EXPECT_EQ(over_tls_port.certificate_der, a.certificate_der);
  // RA-TLS only: a plain request on the vsock listener gets no HTTP answer.
  EXPECT_EQ(exchange(vsock(), false, "GET", "/health").status, 0);
}

// A trivial handler: answers every request with its transport and path.
class EchoHandler final : public HttpHandler {
 public:
  asio::awaitable<void> handle(Exchange& ex) override {
    HttpResponse r;
    r.status = 200;
    r.content_type = "text/plain";
    r.body = std::string(ex.transport() == Transport::kUnix ? "unix " : "other ") + ex.request().path +
             (ex.tls_spki_sha256() ? " tls" : "");
    co_await ex.respond(std::move(r));
  }
  asio::awaitable<void> reject(Exchange& ex, const Error&) override {
    HttpResponse r;
    r.status = 400;
    co_await ex.respond(std::move(r));
  }
};

// A TLS identity with a fresh self-signed P-256 certificate.
class TestIdentity final : public TlsIdentitySource {
 public:
  TestIdentity() {
    identity_ = std::make_shared<TlsIdentity>();
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_sign(cert, key, EVP_sha256());
    SSL_CTX* ctx = identity_->context.native_handle();
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_use_certificate(ctx, cert);
    SSL_CTX_use_PrivateKey(ctx, key);
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  std::shared_ptr<TlsIdentity> current() override { return identity_; }

 private:
  std::shared_ptr<TlsIdentity> identity_;
};

// One request over a socketpair whose other end HttpServer::serve_fd serves.
Answer over_socketpair(HttpServer& server, bool tls, const std::string& target) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return Answer{0, "", "", "", "socketpair"};
  server.serve_fd(fds[0]);
  Answer a;
  try {
    asio::io_context ioc;
    http::request<http::empty_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "localhost");
    req.set(http::field::connection, "close");
    http::response<http::string_body> res;
    beast::flat_buffer buffer;
    if (tls) {
      ssl::context ctx(ssl::context::tls_client);
      ctx.set_verify_mode(ssl::verify_none);
      beast::ssl_stream<Protocol::socket> stream(ioc, ctx);
      beast::get_lowest_layer(stream).assign(Protocol(AF_UNIX, 0), fds[1]);
      stream.handshake(ssl::stream_base::client);
      http::write(stream, req);
      http::read(stream, buffer, res);
    } else {
      Protocol::socket socket(ioc, Protocol(AF_UNIX, 0), fds[1]);
      http::write(socket, req);
      http::read(socket, buffer, res);
    }
    a.status = static_cast<int>(res.result_int());
    a.body = res.body();
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  return a;
}

class InjectedSocket : public ::testing::Test {
 protected:
  void run(HttpServer& server) {
    server.start();  // no listener: only handed sockets
    thread_ = std::thread([this] { ioc_.run(); });
  }
  // Stops the I/O thread: call before the test's HttpServers go away (pending handlers refer to them).
  void stop() {
    work_.reset();
    ioc_.stop();
    if (thread_.joinable()) thread_.join();
  }
  void TearDown() override { stop(); }
  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{ioc_.get_executor()};
  std::thread thread_;
  EchoHandler handler_;
};

TEST_F(InjectedSocket, ASocketpairIsServedLikeAnAcceptedConnectionPlainAndTls) {
  HttpServer plain(ioc_, handler_, HttpLimits{});
  TestIdentity identity;
  HttpServer tls(ioc_, handler_, HttpLimits{}, &identity);
  run(plain);
  tls.start();
  const Answer a = over_socketpair(plain, false, "/health");
  EXPECT_EQ(a.status, 200) << a.error;
  EXPECT_EQ(a.body, "unix /health");
  const Answer b = over_socketpair(tls, true, "/v1/models");
  EXPECT_EQ(b.status, 200) << b.error;
  EXPECT_EQ(b.body, "unix /v1/models tls");
  stop();
}

TEST_F(InjectedSocket, ListenFdAcceptsOnAnAdoptedUnixListener) {
  TempDir dir;
  HttpServer server(ioc_, handler_, HttpLimits{});
  const std::string path = dir.file("s.sock");
  server.listen_fd(unix_listener(path));
  run(server);
  const Protocol::endpoint ep{asio::local::stream_protocol::endpoint(path)};
  for (int i = 0; i < 3; ++i) {
    const Answer a = exchange(ep, false, "GET", "/n" + std::to_string(i));
    EXPECT_EQ(a.status, 200) << a.error;
    EXPECT_EQ(a.body, "unix /n" + std::to_string(i));
  }
  stop();
}

TEST_F(InjectedSocket, SocketsThatAreNotListeningStreamsAreRefused) {
  HttpServer server(ioc_, handler_, HttpLimits{});
  const int dgram = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  EXPECT_THROW(server.listen_fd(dgram), Error);
  const int unbound = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_THROW(server.listen_fd(unbound), Error) << "not listening";
  const int dgram2 = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  EXPECT_THROW(server.serve_fd(dgram2), Error);
}

// Why this machine cannot open an AF_VSOCK socket ("" when it can).
std::string vsock_unavailable() {
  const int fd = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("socket(AF_VSOCK) failed: ") + std::strerror(errno);
  ::close(fd);
  return "";
}

TEST(VsockListener, BindsAndListensOnARealAfVsockSocket) {
  if (const std::string why = vsock_unavailable(); !why.empty()) GTEST_SKIP() << why;
  asio::io_context ioc;
  EchoHandler handler;
  HttpServer a(ioc, handler, HttpLimits{});
  const uint32_t port = a.listen_vsock(HttpServer::kVsockPortAny);
  EXPECT_NE(port, HttpServer::kVsockPortAny) << "the bound port is read back";
  // The port is taken: a second listener on it fails with the port in the message.
  HttpServer b(ioc, handler, HttpLimits{});
  try {
    b.listen_vsock(port);
    FAIL() << "two listeners on vsock port " << port;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
    EXPECT_NE(std::string(e.what()).find("vsock port " + std::to_string(port)), std::string::npos) << e.what();
  }
}

TEST(VsockListener, TheServerBindsVsockPortOnAnyCid) {
  if (const std::string why = vsock_unavailable(); !why.empty()) GTEST_SKIP() << why;
  config::Config cfg;
  cfg.port = 0;
  cfg.vsock_port = 0;
  cfg.api_keys = {key_for(kUserKey, "user")};
  auto reg = std::make_shared<runtime::ModelRegistry>(
      [](const std::string& name, const std::string&) {
        return std::make_shared<testing::FakeRuntime>(name, testing::FakeOptions{});
      },
      nullptr);
  Server server(cfg, reg);
  server.start();
  ASSERT_TRUE(server.vsock_port().has_value());
  EXPECT_NE(*server.vsock_port(), 0u);
  EXPECT_NE(*server.vsock_port(), HttpServer::kVsockPortAny);
  server.request_shutdown();
  server.wait();
}

TEST(BindPolicy, VsockIsReachableByTheHostSoItNeedsKeysAndInStrictModeRatls) {
  config::Config cfg;  // loopback host
  cfg.vsock_port = 5000;
  EXPECT_FALSE(loopback_only(cfg));
  try {
    check_bind_policy(cfg);
    FAIL() << "vsock without api_keys";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kConfig);
    EXPECT_NE(std::string(e.what()).find("vsock"), std::string::npos) << e.what();
  }
  cfg.allow_unauthenticated = true;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.allow_unauthenticated = false;
  cfg.api_keys = {key_for(kUserKey, "user")};
  EXPECT_NO_THROW(check_bind_policy(cfg));

  // Strict TEE mode: plain HTTP over vsock would reach the host (the operator).
  cfg.tee_mode = true;
  cfg.tee_policy = TeePolicy::kStrict;
  try {
    check_bind_policy(cfg);
    FAIL() << "plain vsock in strict mode";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kConfig);
    EXPECT_NE(std::string(e.what()).find("vsock (vsock_port) in strict TEE mode without RA-TLS"), std::string::npos)
        << e.what();
  }
  cfg.ratls = true;
  cfg.tls_port = 0;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  // Development policy allows plain vsock (with keys).
  cfg.ratls = false;
  cfg.tee_policy = TeePolicy::kDevelopment;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.vsock_port = -1;
  EXPECT_TRUE(loopback_only(cfg));
}

}  // namespace
}  // namespace a3s::power::server::vsock_test

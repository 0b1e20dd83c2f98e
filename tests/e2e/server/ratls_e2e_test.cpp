// RA-TLS end to end with the real server binary (tee_mode, development policy, simulated evidence):
// a3s-power-verify --ratls accepts the server's certificate and then the nonce flow on a connection
// pinned to the certificate's key; a man in the middle presenting another key (with the genuine certificate's evidence
// copied, or without evidence) while relaying to the real server is rejected; the certificate is
// renewed with a new key when its lifetime ends; bad RA-TLS configurations do not start.
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/http_client.h"
#include "support/mitm_certificate.h"
#include "support/server_process.h"
#include "support/process.h"
#include "a3s/power/verify_attestation.h"
#include "crypto/openssl.h"
#include "base/hex.h"
#include "crypto/sha256.h"
#include "tee/ratls_certificate.h"

namespace a3s::power::testing {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using nlohmann::json;

std::string file_sha256_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
}

std::string ratls_config(const TempDir& dir, const std::string& extra = {}) {
  return dir.write("power.hcl",
                   "tee_mode = true\ntee_policy = \"development\"\n"
                   "tee_device_root = \"" +
                       dir.path() + "\"\nratls = true\ntls_port = 0\n" + extra);
}

std::string verify_command(int tls_port) {
  return bin_dir() + "/a3s-power-verify --ratls --url https://127.0.0.1:" + std::to_string(tls_port) +
         " --model stories260K --format json --expected-hash sha256:" + file_sha256_hex(stories_model());
}

ssl::context client_context() {
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);
  return ctx;
}

// A TLS 1.3 client connection to 127.0.0.1:port, handshake done (no certificate verification).
void connect_tls(beast::ssl_stream<beast::tcp_stream>& s, int port) {
  beast::get_lowest_layer(s).connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port)));
  s.handshake(ssl::stream_base::client);
}

// The certificate a TLS 1.3 handshake with 127.0.0.1:port presents.
crypto::X509Ptr peer_certificate(int port) {
  asio::io_context ioc;
  ssl::context ctx = client_context();
  beast::ssl_stream<beast::tcp_stream> s(ioc, ctx);
  connect_tls(s, port);
  crypto::X509Ptr cert(SSL_get1_peer_certificate(s.native_handle()));
  beast::error_code ec;
  s.shutdown(ec);
  return cert;
}

struct TlsAnswer {
  int status = 0;
  std::string body;
  std::string certificate_der;  // the certificate of the connection that answered
};

// GET `target` over one TLS 1.3 connection to 127.0.0.1:port (no certificate verification).
TlsAnswer tls_get(int port, const std::string& target) {
  asio::io_context ioc;
  ssl::context ctx = client_context();
  beast::ssl_stream<beast::tcp_stream> s(ioc, ctx);
  connect_tls(s, port);
  TlsAnswer a;
  crypto::X509Ptr cert(SSL_get1_peer_certificate(s.native_handle()));
  if (cert) a.certificate_der = tee::certificate_der(cert.get());
  a.status = -1;
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(false);
  http::write(s, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(s, buffer, res);
  a.status = static_cast<int>(res.result_int());
  a.body = res.body();
  beast::error_code ec;
  s.shutdown(ec);
  return a;
}

// A man in the middle on an ephemeral loopback port: presents `identity` and relays each request to
// the real server's RA-TLS port (one request per connection).
class MitmProxy {
 public:
  MitmProxy(MitmIdentity identity, int upstream_port)
      : identity_(std::move(identity)), upstream_port_(upstream_port), acceptor_(ioc_) {
    SSL_CTX* ctx = server_ctx_.native_handle();
    SSL_CTX_use_certificate(ctx, identity_.certificate.get());
    SSL_CTX_use_PrivateKey(ctx, identity_.key.get());
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(ep.protocol());
    acceptor_.bind(ep);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { serve(); });
  }
  ~MitmProxy() {
    stop_ = true;
    beast::error_code ec;
    // Wake the blocking accept with a connection of our own.
    tcp::socket poke(ioc_);
    poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(port_)), ec);
    thread_.join();
  }
  int port() const { return port_; }
  int relayed() const { return relayed_.load(); }
  int received() const { return received_.load(); }  // requests read from clients (each may carry a key)

 private:
  void serve() {
    while (!stop_) {
      tcp::socket socket(ioc_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_) return;
      try {
        relay(std::move(socket));
      } catch (const std::exception&) {
      }
    }
  }
  void relay(tcp::socket socket) {
    beast::ssl_stream<beast::tcp_stream> down(std::move(socket), server_ctx_);
    down.handshake(ssl::stream_base::server);
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    http::read(down, buffer, req);
    ++received_;
    req.keep_alive(false);
    ssl::context ctx = client_context();
    beast::ssl_stream<beast::tcp_stream> up(ioc_, ctx);
    beast::get_lowest_layer(up).connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(upstream_port_)));
    up.handshake(ssl::stream_base::client);
    http::write(up, req);
    beast::flat_buffer up_buffer;
    http::response<http::string_body> res;
    http::read(up, up_buffer, res);
    ++relayed_;
    res.keep_alive(false);
    http::write(down, res);
    beast::error_code ec;
    down.shutdown(ec);
  }

  MitmIdentity identity_;
  int upstream_port_;
  asio::io_context ioc_;
  ssl::context server_ctx_{ssl::context::tls_server};
  tcp::acceptor acceptor_;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> relayed_{0};
  std::atomic<int> received_{0};
  std::thread thread_;
};

class RatlsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    server_ = new ServerProcess({"--config", ratls_config(*dir_), "--model", stories_model()});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->ready()) << server_->log();
    ASSERT_GT(server_->tls_port(), 0) << server_->log();
  }

  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(RatlsE2E, VerifierAcceptsTheCertificateThenTheNonceFlowPinnedToItsKey) {
  const ProcessResult ok = run_shell(verify_command(server_->tls_port()) + " --allow-simulated", false);
  ASSERT_EQ(ok.status, 0) << ok.out << server_->log();
  const json accepted = json::parse(ok.out);
  EXPECT_EQ(accepted["accepted"], true);
  std::vector<std::string> names;
  for (const auto& c : accepted["checks"]) names.push_back(c["name"]);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[0], "ratls_certificate");
  EXPECT_EQ(names[3], "tls_key");

  // The certificate's evidence binds the key the handshake presented.
  auto cert = peer_certificate(server_->tls_port());
  ASSERT_TRUE(cert);
  verify::AttestationPolicy p;
  p.allow_simulated = true;
  const verify::AttestationResult r = verify::verify_ratls_certificate(tee::certificate_der(cert.get()), p);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.model, "stories260K");
}

TEST_F(RatlsE2E, TlsPortServesTheSameRoutesAndItsAttestationBindsTheConnectionKey) {
  EXPECT_EQ(tls_get(server_->tls_port(), "/health").status, 200);
  const TlsAnswer models = tls_get(server_->tls_port(), "/v1/models");
  ASSERT_EQ(models.status, 200) << models.body;
  EXPECT_EQ(json::parse(models.body)["data"][0]["id"], "stories260K");

  const std::string nonce(64, 'a');
  const TlsAnswer a = tls_get(server_->tls_port(), "/v1/attestation?nonce=" + nonce);
  ASSERT_EQ(a.status, 200) << a.body;
  const json claims = json::parse(a.body)["claims"];
  EXPECT_EQ(claims["nonce"], nonce);
  const auto spki = verify::certificate_spki_sha256(a.certificate_der);
  ASSERT_TRUE(spki.has_value());
  EXPECT_EQ(claims["tls"]["spki_sha256"], to_hex(*spki));

  // Before renewal is due, every connection gets the same certificate.
  EXPECT_EQ(tls_get(server_->tls_port(), "/health").certificate_der, a.certificate_der);

  // The plain port's claims bind no TLS key.
  const HttpResult plain = testing::http("GET", server_->url("/v1/attestation?nonce=" + nonce));
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_FALSE(json::parse(plain.body)["claims"].contains("tls")) << plain.body;
}

TEST_F(RatlsE2E, SimulatedEvidenceIsRejectedWithoutAllowSimulated) {
  const ProcessResult strict = run_shell(verify_command(server_->tls_port()), false);
  EXPECT_EQ(strict.status, 3) << strict.out;
  EXPECT_EQ(json::parse(strict.out)["failed_step"], "simulated_evidence") << strict.out;
}

TEST_F(RatlsE2E, RatlsNeedsAnHttpsUrl) {
  const std::string cmd =
      bin_dir() + "/a3s-power-verify --ratls --url http://127.0.0.1:" + std::to_string(server_->port()) +
      " --model stories260K --expected-hash sha256:" + file_sha256_hex(stories_model()) +
      " --allow-simulated";
  const ProcessResult r = run_shell(cmd);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--ratls needs an https:// URL"), std::string::npos) << r.out;
  // Without --ratls, https keeps normal certificate verification: the self-signed certificate fails.
  const std::string pki = bin_dir() +
                          "/a3s-power-verify --url https://127.0.0.1:" + std::to_string(server_->tls_port()) +
                          " --model stories260K --expected-hash sha256:" + file_sha256_hex(stories_model()) +
                          " --allow-simulated";
  EXPECT_EQ(run_shell(pki).status, 2);
}

TEST_F(RatlsE2E, ManInTheMiddleWithAnotherKeyIsRejected) {
  auto genuine = peer_certificate(server_->tls_port());
  ASSERT_TRUE(genuine);
  MitmProxy mitm(mitm_identity(genuine.get(), /*copy_evidence=*/true), server_->tls_port());
  const ProcessResult r = run_shell(verify_command(mitm.port()) + " --allow-simulated", false);
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_EQ(json::parse(r.out)["failed_step"], "tls_key_mismatch") << r.out;
  // The certificate is refused on a handshake-only connection: no request (and no API key) reaches it.
  EXPECT_EQ(mitm.relayed(), 0) << "a request was sent to the man in the middle";

  MitmProxy plain(mitm_identity(genuine.get(), /*copy_evidence=*/false), server_->tls_port());
  const ProcessResult missing = run_shell(verify_command(plain.port()) + " --allow-simulated", false);
  EXPECT_EQ(missing.status, 3) << missing.out;
  EXPECT_EQ(json::parse(missing.out)["failed_step"], "ratls_extension_missing") << missing.out;
}

// verify → pin → chat: the client talks to exactly the key the verifier checked; a man in the middle
// with another key gets no request at all (so never the API key).
TEST_F(RatlsE2E, ChatAndPsOverThePinnedKeyAndNothingReachesAnotherKey) {
  const ProcessResult verified = run_shell(verify_command(server_->tls_port()) + " --allow-simulated", false);
  ASSERT_EQ(verified.status, 0) << verified.out;
  auto cert = peer_certificate(server_->tls_port());
  ASSERT_TRUE(cert);
  const auto spki = verify::certificate_spki_sha256(tee::certificate_der(cert.get()));
  ASSERT_TRUE(spki.has_value());
  const std::string pin = "sha256:" + to_hex(*spki);
  const std::string url = "https://127.0.0.1:" + std::to_string(server_->tls_port());
  const std::vector<std::string> chat = {"chat", "stories260K", "Once upon a time", "--temperature", "0",
                                         "-n", "8", "--ratls-pin", pin};
  auto with_url = [&](std::vector<std::string> args, const std::string& u) {
    args.insert(args.end(), {"--url", u});
    return args;
  };
  RunOptions key;
  key.env = {{"A3S_POWER_API_KEY", "sk-never-to-a-stranger"}};
  const ProcessResult ok = run_process(bin_path("a3s-power"), with_url(chat, url), key);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_FALSE(ok.out.empty());
  EXPECT_EQ(run_process(bin_path("a3s-power"), {"ps", "--url", url, "--ratls-pin", pin}).status, 0);

  MitmProxy mitm(mitm_identity(cert.get(), /*copy_evidence=*/true), server_->tls_port());
  const std::string mitm_url = "https://127.0.0.1:" + std::to_string(mitm.port());
  const ProcessResult refused = run_process(bin_path("a3s-power"), with_url(chat, mitm_url), key);
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("not the pinned RA-TLS key"), std::string::npos) << refused.err;
  EXPECT_EQ(mitm.received(), 0) << "no request (and so no API key) reached the other key";
  // A wrong pin is refused against the real server too; a malformed pin or plain http is a usage error.
  const std::string wrong = "sha256:" + std::string(64, '0');
  const ProcessResult other = run_process(bin_path("a3s-power"), {"ps", "--url", url, "--ratls-pin", wrong});
  EXPECT_NE(other.status, 0);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"ps", "--url", url, "--ratls-pin", "sha256:abc"},
        std::vector<std::string>{"ps", "--url", url, "--ratls-pin", ""},
        std::vector<std::string>{"ps", "--url", url, "--ratls-pin", to_hex(*spki)},
        std::vector<std::string>{"ps", "--url", server_->url(""), "--ratls-pin", pin}}) {
    const ProcessResult r = run_process(bin_path("a3s-power"), bad);
    EXPECT_EQ(r.status, 2) << r.err;
  }
}

TEST(RatlsE2ERotation, ANewConnectionAfterExpiryGetsANewKeyWhoseEvidenceVerifies) {
  TempDir dir;
  ServerProcess s(
      {"--config", ratls_config(dir, "ratls_cert_lifetime_seconds = 2\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  auto first = peer_certificate(s.tls_port());
  ASSERT_TRUE(first);
  const std::string first_der = tee::certificate_der(first.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  auto second = peer_certificate(s.tls_port());
  ASSERT_TRUE(second);
  const std::string second_der = tee::certificate_der(second.get());
  EXPECT_NE(*verify::certificate_spki_sha256(first_der), *verify::certificate_spki_sha256(second_der));

  verify::AttestationPolicy p;
  p.allow_simulated = true;
  const verify::AttestationResult renewed = verify::verify_ratls_certificate(second_der, p);
  EXPECT_TRUE(renewed.accepted) << renewed.failed_step << ": " << renewed.message;
  EXPECT_EQ(verify::verify_ratls_certificate(first_der, p).failed_step, "ratls_certificate_expired");
  const ProcessResult ok = run_shell(verify_command(s.tls_port()) + " --allow-simulated", false);
  EXPECT_EQ(ok.status, 0) << ok.out;
}

TEST(RatlsE2EConfig, BadRatlsConfigurationsDoNotStart) {
  TempDir dir;
  const std::string root = "tee_device_root = \"" + dir.path() + "\"\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ratls = true\ntls_port = 0\n", "'ratls' needs tee_mode = true"},
      {"tee_mode = true\ntee_policy = \"development\"\n" + root + "ratls = true\n",
       "'ratls' needs 'tls_port'"},
      {"tls_port = 0\n", "'tls_port' needs ratls = true: only RA-TLS certificates"},
  };
  for (const auto& [text, message] : cases) {
    const std::string cfg = dir.write("bad.hcl", text);
    const ProcessResult r =
        run_shell(bin_dir() + "/a3s-power serve --port 0 --config " + cfg + " --model " + stories_model());
    EXPECT_EQ(r.status, 2) << text << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("listening on"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace a3s::power::testing

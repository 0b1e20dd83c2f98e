// https: the server certificate is always verified. A loopback TLS server with a freshly made
// self-signed certificate (CN and SAN 127.0.0.1) is refused unless that certificate is given as
// the CA file, and a wrong host name is refused even then.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "a3s/power/error.h"
#include "crypto/openssl.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"

namespace a3s::power::client {
namespace {

// Answers every connection with one fixed HTTP response over TLS.
class TlsServer {
 public:
  explicit TlsServer(const std::string& dir) {
    key_.reset(EVP_EC_gen("P-256"));
    cert_.reset(X509_new());
    if (!key_ || !cert_) throw std::runtime_error("key/cert");
    X509_set_version(cert_.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert_.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert_.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert_.get()), 3600);
    X509_set_pubkey(cert_.get(), key_.get());
    X509_NAME* name = X509_get_subject_name(cert_.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"),
                               -1, -1, 0);
    X509_set_issuer_name(cert_.get(), name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert_.get(), cert_.get(), nullptr, nullptr, 0);
    for (auto [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                              std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
      X509_add_ext(cert_.get(), ext, -1);
      X509_EXTENSION_free(ext);
    }
    if (X509_sign(cert_.get(), key_.get(), EVP_sha256()) == 0) throw std::runtime_error("sign");
    cert_file_ = dir + "/server-cert.pem";
    FILE* f = std::fopen(cert_file_.c_str(), "w");
    PEM_write_X509(f, cert_.get());
    std::fclose(f);

    // A client that refuses the certificate closes the connection mid-handshake; the server's next
    // write must fail with EPIPE, not kill the test process.
    std::signal(SIGPIPE, SIG_IGN);
    ctx_.reset(SSL_CTX_new(TLS_server_method()));
    SSL_CTX_use_certificate(ctx_.get(), cert_.get());
    SSL_CTX_use_PrivateKey(ctx_.get(), key_.get());

    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 4) != 0) {
      throw std::runtime_error("listen");
    }
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  const std::string& cert_file() const { return cert_file_; }

 private:
  void serve() {
    const std::string body = R"({"status":"ok","models":[]})";
    const std::string response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      crypto::SslPtr ssl(SSL_new(ctx_.get()));
      SSL_set_fd(ssl.get(), c);
      if (SSL_accept(ssl.get()) == 1) {
        char buf[4096];
        SSL_read(ssl.get(), buf, sizeof buf);  // the request head (small)
        SSL_write(ssl.get(), response.data(), static_cast<int>(response.size()));
        SSL_shutdown(ssl.get());
      }
      ::close(c);
    }
  }

  crypto::EvpPkeyPtr key_;
  crypto::X509Ptr cert_;
  crypto::SslCtxPtr ctx_;
  std::string cert_file_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class TlsVerification : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("a3s-client-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    server_ = std::make_unique<TlsServer>(dir_.string());
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  ClientOptions options(const std::string& host, const std::string& ca_file) const {
    ClientOptions o{.url = ServerUrl::parse("https://" + host + ":" + std::to_string(server_->port())),
                    .api_key = ""};
    o.ca_file = ca_file;
    return o;
  }

  std::filesystem::path dir_;
  std::unique_ptr<TlsServer> server_;
};

TEST_F(TlsVerification, UntrustedCertificateIsRefused) {
  HttpClient http(options("127.0.0.1", ""));
  try {
    http.get_json("/health");
    FAIL() << "an unverifiable certificate was accepted";
  } catch (const ServerError&) {
    FAIL() << "a TLS failure is a connection failure";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "server_unreachable");
    EXPECT_NE(std::string(e.what()).find("TLS"), std::string::npos) << e.what();
  }
}

TEST_F(TlsVerification, TrustedThroughTheCaFile) {
  HttpClient http(options("127.0.0.1", server_->cert_file()));
  auto j = http.get_json("/health");
  EXPECT_EQ(j["status"], "ok");
}

TEST_F(TlsVerification, HostNameMismatchIsRefusedEvenWithTheCaFile) {
  HttpClient http(options("localhost", server_->cert_file()));  // the certificate names 127.0.0.1 only
  try {
    http.get_json("/health");
    FAIL() << "a certificate for another host was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "server_unreachable") << e.what();
    EXPECT_NE(std::string(e.what()).find("TLS"), std::string::npos) << e.what();
  }
}

TEST(TlsOptions, UnreadableCaFileIsAnInputError) {
  ClientOptions o{.url = ServerUrl::parse("https://127.0.0.1:1"), .api_key = ""};
  o.ca_file = "/nonexistent/ca.pem";
  try {
    HttpClient http(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

}  // namespace
}  // namespace a3s::power::client

#include "support/fake_tls_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

namespace a3s::power::testing {

FakeTlsServer::FakeTlsServer(EVP_PKEY* key, X509* certificate, std::string response)
    : response_(std::move(response)) {
  // A client that refuses the certificate hangs up mid-handshake: a later write must not kill the test.
  std::signal(SIGPIPE, SIG_IGN);
  ctx_.reset(SSL_CTX_new(TLS_server_method()));
  if (!ctx_ || SSL_CTX_use_certificate(ctx_.get(), certificate) != 1 || SSL_CTX_use_PrivateKey(ctx_.get(), key) != 1)
    throw std::runtime_error("fake TLS server: certificate or key refused");
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 8) != 0)
    throw std::runtime_error("fake TLS server: listen failed");
  socklen_t len = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  thread_ = std::thread([this] { serve(); });
}

FakeTlsServer::~FakeTlsServer() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
}

std::vector<std::string> FakeTlsServer::received() const {
  std::lock_guard<std::mutex> lock(mu_);
  return received_;
}

bool FakeTlsServer::wait_for_connections(size_t n, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (received().size() < n) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void FakeTlsServer::serve() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    timeval tv{5, 0};
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    crypto::SslPtr ssl(SSL_new(ctx_.get()));
    SSL_set_fd(ssl.get(), c);
    if (SSL_accept(ssl.get()) == 1) {
      ++handshakes_;
      std::string got;
      char buf[4096];
      // Everything until the head ends or the client hangs up (a handshake-only client sends nothing).
      while (got.find("\r\n\r\n") == std::string::npos) {
        const int n = SSL_read(ssl.get(), buf, sizeof buf);
        if (n <= 0) break;
        got.append(buf, static_cast<size_t>(n));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        received_.push_back(got);
      }
      if (!got.empty()) SSL_write(ssl.get(), response_.data(), static_cast<int>(response_.size()));
      SSL_shutdown(ssl.get());
    }
    ::close(c);
  }
}

}  // namespace a3s::power::testing

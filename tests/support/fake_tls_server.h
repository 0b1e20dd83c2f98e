// A fake HTTPS server on 127.0.0.1 (an ephemeral port) with a given key and certificate, for tests of
// TLS clients that must decide about the certificate before they send anything (RA-TLS): it records
// every byte each connection sent after the handshake, and answers each one with a fixed HTTP
// response (after reading what the client wrote, if anything).
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crypto/openssl.h"

namespace a3s::power::testing {

class FakeTlsServer {
 public:
  // Serves `certificate` for `key` (both up-refcounted: the caller keeps its own); `response` is
  // written on every connection once its request head arrived.
  FakeTlsServer(EVP_PKEY* key, X509* certificate, std::string response);
  ~FakeTlsServer();
  FakeTlsServer(const FakeTlsServer&) = delete;
  FakeTlsServer& operator=(const FakeTlsServer&) = delete;

  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  int handshakes() const { return handshakes_; }  // connections whose TLS handshake completed
  std::vector<std::string> received() const;     // application bytes of each such connection, in order
  // Waits until `n` connections have completed their handshake and been read to their end (the
  // client's side of a handshake ends before the server's does, so a client may be done earlier).
  // False after `timeout`.
  bool wait_for_connections(size_t n, std::chrono::milliseconds timeout) const;

 private:
  void serve();

  crypto::SslCtxPtr ctx_;
  std::string response_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> handshakes_{0};
  mutable std::mutex mu_;
  std::vector<std::string> received_;
  std::thread thread_;
};

}  // namespace a3s::power::testing

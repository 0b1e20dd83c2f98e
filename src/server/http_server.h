// HTTP/1.1 server on Boost.Beast: keep-alive, bounded header and body sizes, idle and write
// timeouts, "Expect: 100-continue", chunked streaming responses, and peer-disconnect detection.
//
// Each connection runs as one coroutine on its own strand; route handlers (HttpHandler) run on that
// strand too and must not block (generation runs on the scheduler's workers).
//
// TLS (RA-TLS, docs/ra-tls.md): a server given a TlsIdentitySource speaks TLS 1.3 only (no client
// certificates) on every connection it accepts, with the identity current at accept time; the same
// connection code serves plain TCP and TLS streams. Exchange::tls_spki_sha256() names the key.
//
// Transports: one listener per HttpServer, of any stream socket family — TCP (listen), AF_VSOCK
// (listen_vsock, docs/ra-tls.md "vsock"), or an adopted listening socket (listen_fd); serve_fd hands
// it one connected socket. Accept loop, connections and TLS are the same code for all of them;
// Exchange::transport() tells the routes which one a request came over.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include "a3s/power/error.h"
#include "server/exchange.h"

namespace a3s::power::server {

struct HttpLimits {
  size_t max_header_bytes = 16 * 1024;                 // request line + headers; larger → 431
  uint64_t max_body_bytes = 4u << 20;                  // larger → 413
  std::chrono::milliseconds idle_timeout{60'000};      // keep-alive connection with no request
  std::chrono::milliseconds read_timeout{30'000};      // reading one request once it started
  std::chrono::milliseconds write_timeout{30'000};     // one write (a client that stops reading)
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // Handles a complete request. Exceptions escaping it become a 500 (or the Error's status) when
  // nothing has been sent yet, and close the connection otherwise.
  virtual asio::awaitable<void> handle(Exchange& ex) = 0;
  // Answers a request that could not be read (413 too large, 431 header too large, 400 malformed).
  // ex.request() has whatever of the request line and headers was read.
  virtual asio::awaitable<void> reject(Exchange& ex, const Error& error) = 0;
};

// A TLS server identity: the context new connections are made with (certificate and private key
// loaded) and the SHA-256 of the certificate's DER SubjectPublicKeyInfo.
struct TlsIdentity {
  asio::ssl::context context{asio::ssl::context::tls_server};
  std::array<uint8_t, 32> spki_sha256{};
};

class TlsIdentitySource {
 public:
  virtual ~TlsIdentitySource() = default;
  // The identity for a connection accepted now (may renew it first; called on an I/O thread).
  // Throws on failure: the connection is then closed without a handshake.
  virtual std::shared_ptr<TlsIdentity> current() = 0;
};

class HttpServer {
 public:
  // tls: nullptr → plain HTTP; else every connection speaks TLS with tls->current(), which must
  // outlive the server.
  HttpServer(asio::io_context& ioc, HttpHandler& handler, HttpLimits limits, TlsIdentitySource* tls = nullptr);
  ~HttpServer();

  // Binds host:port (port 0 → ephemeral) and listens. Returns the bound port.
  // Throws Error(codes::kIo) when the address is invalid or cannot be bound.
  uint16_t listen(const std::string& host, uint16_t port);
  // Binds AF_VSOCK port `port` on any CID (kVsockPortAny → ephemeral) and listens. Returns the bound
  // port. Throws Error(codes::kIo) when the kernel has no vsock transport or the port cannot be bound.
  static constexpr uint32_t kVsockPortAny = 0xFFFFFFFFu;  // VMADDR_PORT_ANY
  uint32_t listen_vsock(uint32_t port);
  // Takes ownership of `fd`, a stream socket already listening (socket activation; tests, where an
  // AF_UNIX socket stands in for AF_VSOCK on kernels without vsock loopback). Its family gives the
  // transport. Throws Error(codes::kIo) when `fd` is not a listening stream socket.
  void listen_fd(int fd);
  // Takes ownership of `fd`, a connected stream socket, and serves it as an accepted connection (TLS
  // too, with a TlsIdentitySource), e.g. one end of a socketpair. Call after start(); not after
  // stop_accepting(). Throws Error(codes::kIo) when `fd` is not a stream socket.
  void serve_fd(int fd);
  // Starts accepting connections (on the io_context's threads).
  void start();
  // Stops accepting; open connections finish their current exchange and then close.
  void stop_accepting();

  int open_connections() const { return state_->connections.load(); }
  int active_exchanges() const { return state_->exchanges.load(); }

  struct State {
    std::atomic<int> connections{0};
    std::atomic<int> exchanges{0};
    std::atomic<bool> stopping{false};
  };

 private:
  asio::awaitable<void> accept_loop();
  // Starts serving an accepted (or handed) socket: plain, or TLS with the current identity.
  void serve(asio::generic::stream_protocol::socket socket, Transport transport);

  asio::io_context& ioc_;
  HttpHandler& handler_;
  HttpLimits limits_;
  TlsIdentitySource* tls_;
  asio::basic_socket_acceptor<asio::generic::stream_protocol> acceptor_;
  Transport transport_ = Transport::kTcp;  // the listener's
  std::shared_ptr<State> state_;
};

}  // namespace a3s::power::server

// One request/response exchange on a connection, as the routes see it. Implemented by the HTTP
// server over Beast; all methods must be called from the exchange's executor (the connection's
// strand), which is where route coroutines run.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "server/http_message.h"

namespace a3s::power::server {

namespace asio = boost::asio;

// What the request log and the metrics record about an exchange.
struct ExchangeRecord {
  std::string route = "unmatched";  // route template, never the raw path
  int status = 0;
  int prompt_tokens = -1;           // -1: not a generation
  int completion_tokens = -1;
};

// The kind of listener a connection arrived on. A browser reaches a server over TCP only, so the
// checks against a foreign site's requests (a loopback server's Host and Origin) are TCP's.
enum class Transport {
  kTcp,    // IPv4 / IPv6
  kVsock,  // AF_VSOCK: the host and other VMs of the machine
  kUnix,   // AF_UNIX: an adopted listener or a connected socket (HttpServer::listen_fd, serve_fd)
};

class Exchange {
 public:
  virtual ~Exchange() = default;

  virtual const HttpRequest& request() const = 0;
  virtual ExchangeRecord& record() = 0;
  virtual asio::any_io_executor executor() const = 0;

  // Sends a complete response (Content-Length framing). At most one response per exchange.
  virtual asio::awaitable<void> respond(HttpResponse response) = 0;

  // Starts a chunked streaming response. Returns false when the client is gone.
  virtual asio::awaitable<bool> begin_stream(int status, const std::string& content_type,
                                             std::vector<std::pair<std::string, std::string>> headers) = 0;
  // Sends one chunk. Returns false when the write failed (client gone or too slow).
  virtual asio::awaitable<bool> write_chunk(std::string data) = 0;
  // Ends the stream (last chunk).
  virtual asio::awaitable<void> end_stream() = 0;

  // True once a response (complete or streamed) has started.
  virtual bool responded() const = 0;

  // RA-TLS: SHA-256 of the DER SubjectPublicKeyInfo of the certificate this connection's TLS
  // handshake presented; std::nullopt on a plain connection.
  virtual std::optional<std::array<uint8_t, 32>> tls_spki_sha256() const { return std::nullopt; }

  // The listener's transport (Transport).
  virtual Transport transport() const { return Transport::kTcp; }

  // Calls `on_close` (on the exchange's executor) if the peer closes or resets the connection
  // before the exchange ends. One watcher per exchange.
  virtual void watch_disconnect(std::function<void()> on_close) = 0;
};

// Starts a Server-Sent Events stream (200, text/event-stream, not cached or buffered by proxies).
// Returns false when the client is gone.
inline asio::awaitable<bool> begin_event_stream(Exchange& ex) {
  // Named locals: g++ 12 mishandles braced temporaries with string literals inside co_await.
  std::vector<std::pair<std::string, std::string>> headers = {{"Cache-Control", "no-cache"},
                                                              {"X-Accel-Buffering", "no"}};
  std::string content_type = "text/event-stream";
  co_return co_await ex.begin_stream(200, content_type, std::move(headers));
}

}  // namespace a3s::power::server

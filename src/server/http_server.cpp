#include "server/http_server.h"

#include <linux/vm_sockets.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "server/api_error.h"
#include "privacy/wipe_text.h"
#include "privacy/wiping_allocator.h"

namespace a3s::power::server {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Protocol = asio::generic::stream_protocol;
using boost::system::error_code;

namespace {

// Request parser whose header storage (the Authorization header among it) is wiped when freed.
using RequestParser = http::request_parser<http::string_body, privacy::WipingAllocator<char>>;

// RFC 9112 §6.1: a request's body length is known from "Transfer-Encoding: chunked" or Content-Length.
// Any other transfer coding (gzip, "chunked, gzip", a repeated header, …) or both headers at once
// leave the parser a body it cannot delimit, whose bytes would then be read as another request.
template <class Message>
bool transfer_encoding_is_safe(const Message& m) {
  const auto range = m.equal_range(http::field::transfer_encoding);
  if (range.first == range.second) return true;
  if (std::next(range.first) != range.second) return false;  // more than one Transfer-Encoding line
  if (m.find(http::field::content_length) != m.end()) return false;
  std::string_view v(range.first->value().data(), range.first->value().size());
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return beast::iequals(beast::string_view(v.data(), v.size()), "chunked");
}

// Shared by an exchange and its pending disconnect watch (which may complete after the exchange).
struct WatchState {
  bool active = true;
  std::function<void()> on_close;
};

template <class Stream>
class Connection;

// Every transport's connections are generic stream sockets (TCP, AF_VSOCK, AF_UNIX).
using PlainStream = beast::basic_stream<Protocol>;
using TlsStream = beast::ssl_stream<PlainStream>;

template <class Stream>
class ExchangeImpl final : public Exchange {
 public:
  ExchangeImpl(Connection<Stream>& c, HttpRequest req, bool keep_alive)
      : conn_(c), req_(std::move(req)), keep_alive_(keep_alive) {}
  ~ExchangeImpl() override;

  const HttpRequest& request() const override { return req_; }
  ExchangeRecord& record() override { return rec_; }
  asio::any_io_executor executor() const override;

  asio::awaitable<void> respond(HttpResponse response) override;
  asio::awaitable<bool> begin_stream(int status, const std::string& content_type,
                                     std::vector<std::pair<std::string, std::string>> headers) override;
  asio::awaitable<bool> write_chunk(std::string data) override;
  asio::awaitable<void> end_stream() override;
  bool responded() const override { return responded_; }
  void watch_disconnect(std::function<void()> on_close) override;
  std::optional<std::array<uint8_t, 32>> tls_spki_sha256() const override;
  Transport transport() const override { return conn_.transport(); }

  bool keep_alive() const { return keep_alive_ && !broken_; }
  void set_keep_alive(bool v) { keep_alive_ = v; }
  bool stream_open() const { return streaming_ && !stream_ended_; }

 private:
  template <typename Fields>
  void common_headers(Fields& f) const;

  Connection<Stream>& conn_;
  HttpRequest req_;
  ExchangeRecord rec_;
  bool keep_alive_;
  bool responded_ = false;
  bool streaming_ = false;
  bool stream_ended_ = false;
  bool broken_ = false;
  std::shared_ptr<WatchState> watch_;
};

// One connection over a plain (PlainStream) or TLS (TlsStream) stream.
template <class Stream>
class Connection : public std::enable_shared_from_this<Connection<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  // identity: the TLS identity the stream was made with (TLS only).
  Connection(Stream stream, Transport transport, std::shared_ptr<TlsIdentity> identity, HttpHandler& handler,
             const HttpLimits& limits, std::shared_ptr<HttpServer::State> state)
      : stream_(std::move(stream)),
        transport_(transport),
        identity_(std::move(identity)),
        handler_(handler),
        limits_(limits),
        state_(std::move(state)) {
    ++state_->connections;
  }
  ~Connection() { --state_->connections; }

  // The connection's coroutine. Takes the owning pointer as a parameter: coroutine parameters live
  // in the frame, so the connection outlives the spawner's reference.
  static asio::awaitable<void> run(std::shared_ptr<Connection> self);

  Stream& stream() { return stream_; }
  PlainStream& lowest() { return beast::get_lowest_layer(stream_); }
  const HttpLimits& limits() const { return limits_; }
  const std::shared_ptr<TlsIdentity>& identity() const { return identity_; }
  Transport transport() const { return transport_; }

 private:
  asio::awaitable<void> serve_all();
  asio::awaitable<bool> serve_one();
  asio::awaitable<void> run_handler(ExchangeImpl<Stream>& ex, bool rejected, const Error* reject_error);
  asio::awaitable<void> close();

  Stream stream_;
  Transport transport_;
  std::shared_ptr<TlsIdentity> identity_;  // keeps the certificate's context alive (TLS only)
  // Raw request bytes (headers with credentials, bodies): freed memory is wiped (WipingAllocator) and
  // the consumed part is released after every exchange.
  beast::basic_flat_buffer<privacy::WipingAllocator<char>> buffer_;
  HttpHandler& handler_;
  HttpLimits limits_;
  std::shared_ptr<HttpServer::State> state_;
};

// ---- ExchangeImpl -----------------------------------------------------------------------------

template <class Stream>
ExchangeImpl<Stream>::~ExchangeImpl() {
  // The request's text and credentials do not outlive the exchange (docs/privacy.md, "Memory").
  privacy::wipe_string(req_.body);
  if (auto it = req_.headers.find("authorization"); it != req_.headers.end()) privacy::wipe_string(it->second);
  if (watch_) {
    watch_->active = false;
    watch_->on_close = nullptr;
    error_code ec;
    conn_.lowest().socket().cancel(ec);  // completes the pending wait (nothing else is pending here)
  }
}

template <class Stream>
asio::any_io_executor ExchangeImpl<Stream>::executor() const {
  return conn_.lowest().get_executor();
}

template <class Stream>
std::optional<std::array<uint8_t, 32>> ExchangeImpl<Stream>::tls_spki_sha256() const {
  if (!conn_.identity()) return std::nullopt;
  return conn_.identity()->spki_sha256;
}

template <class Stream>
template <typename Fields>
void ExchangeImpl<Stream>::common_headers(Fields& f) const {
  f.set(http::field::server, "a3s-power");
  f.set("X-Content-Type-Options", "nosniff");
  f.set(http::field::cache_control, "no-store");
}

template <class Stream>
asio::awaitable<void> ExchangeImpl<Stream>::respond(HttpResponse r) {
  responded_ = true;
  rec_.status = r.status;
  http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
  common_headers(res);
  res.set(http::field::content_type, r.content_type);
  for (auto& [k, v] : r.headers) res.set(k, v);
  res.keep_alive(keep_alive());
  res.body() = std::move(r.body);
  res.prepare_payload();
  error_code ec;
  conn_.lowest().expires_after(conn_.limits().write_timeout);
  co_await http::async_write(conn_.stream(), res, asio::redirect_error(asio::use_awaitable, ec));
  conn_.lowest().expires_never();
  privacy::wipe_string(res.body());  // a completion's text, once sent
  if (ec) broken_ = true;
}

template <class Stream>
asio::awaitable<bool> ExchangeImpl<Stream>::begin_stream(int status, const std::string& content_type,
                                                 std::vector<std::pair<std::string, std::string>> headers) {
  responded_ = true;
  streaming_ = true;
  rec_.status = status;
  http::response<http::empty_body> res{static_cast<http::status>(status), 11};
  common_headers(res);
  res.set(http::field::content_type, content_type);
  for (auto& [k, v] : headers) res.set(k, v);
  res.keep_alive(keep_alive());
  res.chunked(true);
  http::response_serializer<http::empty_body> sr{res};
  error_code ec;
  conn_.lowest().expires_after(conn_.limits().write_timeout);
  co_await http::async_write_header(conn_.stream(), sr, asio::redirect_error(asio::use_awaitable, ec));
  conn_.lowest().expires_never();
  if (ec) broken_ = true;
  co_return !broken_;
}

template <class Stream>
asio::awaitable<bool> ExchangeImpl<Stream>::write_chunk(std::string data) {
  if (broken_) co_return false;
  if (data.empty()) co_return true;  // an empty chunk would end the stream
  error_code ec;
  conn_.lowest().expires_after(conn_.limits().write_timeout);
  co_await asio::async_write(conn_.stream(), http::make_chunk(asio::buffer(data)),
                             asio::redirect_error(asio::use_awaitable, ec));
  conn_.lowest().expires_never();
  privacy::wipe_string(data);
  if (ec) broken_ = true;
  co_return !broken_;
}

template <class Stream>
asio::awaitable<void> ExchangeImpl<Stream>::end_stream() {
  if (broken_ || stream_ended_) co_return;
  stream_ended_ = true;
  error_code ec;
  conn_.lowest().expires_after(conn_.limits().write_timeout);
  co_await asio::async_write(conn_.stream(), http::make_chunk_last(), asio::redirect_error(asio::use_awaitable, ec));
  conn_.lowest().expires_never();
  if (ec) broken_ = true;
}

template <class Stream>
void ExchangeImpl<Stream>::watch_disconnect(std::function<void()> on_close) {
  if (watch_) return;
  watch_ = std::make_shared<WatchState>();
  watch_->on_close = std::move(on_close);
  auto& sock = conn_.lowest().socket();
  int fd = sock.native_handle();
  auto st = watch_;
  sock.async_wait(asio::socket_base::wait_read, [st, fd](const error_code& ec) {
    if (ec || !st->active) return;
    // Readable: either the peer closed (recv → 0 / error) or it pipelined the next request.
    char c;
    ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
    if (closed && st->on_close) {
      auto cb = std::move(st->on_close);
      st->on_close = nullptr;
      cb();
    }
  });
}

// ---- Connection -------------------------------------------------------------------------------

// Moves the body out of the parser (no copy of the request text is left behind).
HttpRequest to_request(RequestParser& parser, bool with_body) {
  auto& m = parser.get();
  HttpRequest r;
  r.method = std::string(m.method_string());
  std::string target(m.target());
  auto q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) r.query = target.substr(q + 1);
  for (const auto& f : m) {
    std::string name(f.name_string());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string value(f.value());
    auto [it, inserted] = r.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
  if (with_body) r.body = std::move(m.body());
  privacy::wipe_string(m.body());  // what a move leaves (a short body stays in the inline buffer)
  return r;
}

template <class Stream>
asio::awaitable<void> Connection<Stream>::run_handler(ExchangeImpl<Stream>& ex, bool rejected, const Error* reject_error) {
  ++state_->exchanges;
  std::optional<Error> failure;
  try {
    if (rejected) {
      co_await handler_.reject(ex, *reject_error);
    } else {
      co_await handler_.handle(ex);
    }
  } catch (const Error& e) {
    failure.emplace(e);
  } catch (const std::exception&) {
    failure.emplace(codes::kInternal, "internal server error");
  }
  if (failure) {
    if (!ex.responded()) {
      co_await ex.respond(error_response(*failure));
    } else {
      ex.set_keep_alive(false);  // a half-sent response cannot be finished cleanly
    }
  }
  if (ex.stream_open()) co_await ex.end_stream();
  --state_->exchanges;
}

// Reads and serves one request. Returns false when the connection should close.
template <class Stream>
asio::awaitable<bool> Connection<Stream>::serve_one() {
  RequestParser parser;
  parser.header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
  parser.body_limit(limits_.max_body_bytes);
  error_code ec;

  lowest().expires_after(limits_.idle_timeout);
  co_await http::async_read_header(stream_, buffer_, parser, asio::redirect_error(asio::use_awaitable, ec));
  std::optional<Error> reject;
  if (!ec && !transfer_encoding_is_safe(parser.get())) {
    // A body whose length the parser cannot know (Transfer-Encoding other than exactly "chunked", or
    // together with Content-Length) would be read as the next request: refuse it and close.
    reject.emplace(codes::kInvalidRequest, "unsupported Transfer-Encoding: only chunked is accepted");
  } else if (!ec) {
    lowest().expires_after(limits_.read_timeout);
    auto expect = parser.get()[http::field::expect];
    if (beast::iequals(expect, "100-continue") && !parser.is_done()) {
      static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
      co_await asio::async_write(stream_, asio::buffer(kContinue, sizeof kContinue - 1),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return false;
    }
    if (!parser.is_done()) {
      co_await http::async_read(stream_, buffer_, parser, asio::redirect_error(asio::use_awaitable, ec));
    }
  }
  lowest().expires_never();
  if (ec == http::error::body_limit) {
    reject.emplace(codes::kRequestTooLarge, "the request body exceeds the server's limit of " +
                                            std::to_string(limits_.max_body_bytes) + " bytes");
  } else if (ec == http::error::header_limit) {
    reject.emplace(codes::kHeaderTooLarge, "the request headers exceed the server's limit of " +
                                           std::to_string(limits_.max_header_bytes) + " bytes");
  } else if (ec && ec.category() == http::make_error_code(http::error::end_of_stream).category() && ec != http::error::end_of_stream &&
             ec != http::error::partial_message) {
    reject.emplace(codes::kInvalidRequest, "malformed HTTP request");
  } else if (ec) {
    co_return false;  // closed, reset or timed out: nothing to answer
  }

  if (reject) {
    ExchangeImpl<Stream> ex(*this, to_request(parser, false), /*keep_alive=*/false);
    co_await run_handler(ex, true, &*reject);
    co_return false;
  }
  bool keep_alive = parser.get().keep_alive() && !state_->stopping.load();
  ExchangeImpl<Stream> ex(*this, to_request(parser, true), keep_alive);
  co_await run_handler(ex, false, nullptr);
  buffer_.shrink_to_fit();  // keeps only pipelined bytes; the old storage is wiped as it is freed
  co_return ex.keep_alive() && !state_->stopping.load();
}

template <class Stream>
asio::awaitable<void> Connection<Stream>::run(std::shared_ptr<Connection> self) {
  if constexpr (kTls) {
    // TLS handshake first, bounded like reading a request.
    error_code ec;
    self->lowest().expires_after(self->limits_.read_timeout);
    co_await self->stream_.async_handshake(asio::ssl::stream_base::server,
                                           asio::redirect_error(asio::use_awaitable, ec));
    self->lowest().expires_never();
    if (ec) {
      self->lowest().close();
      co_return;
    }
  }
  co_await self->serve_all();
}

template <class Stream>
asio::awaitable<void> Connection<Stream>::serve_all() {
  try {
    while (co_await serve_one()) {
    }
  } catch (const std::exception&) {
  }
  co_await close();
}

template <class Stream>
asio::awaitable<void> Connection<Stream>::close() {
  error_code ec;
  if constexpr (kTls) {
    // close_notify, and the peer's (bounded): the client knows the response is complete.
    lowest().expires_after(std::chrono::seconds(2));
    co_await stream_.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
    lowest().close();
  } else {
    lowest().socket().shutdown(asio::socket_base::shutdown_send, ec);
    // Lingering close: drain what the client may still be sending (e.g. the body of a request we
    // refused) so that closing does not reset the connection before it has read our response.
    lowest().expires_after(std::chrono::seconds(2));
    std::array<char, 4096> sink;
    size_t drained = 0;
    while (!ec && drained < (1u << 20)) {
      drained += co_await lowest().async_read_some(asio::buffer(sink), asio::redirect_error(asio::use_awaitable, ec));
    }
    lowest().close();
  }
}

}  // namespace

namespace {

Transport transport_of(int family) {
  switch (family) {
    case AF_INET:
    case AF_INET6: return Transport::kTcp;
    case AF_VSOCK: return Transport::kVsock;
    default: return Transport::kUnix;
  }
}

// The address family of socket `fd`, which must be a stream socket (else Error(codes::kIo)).
int stream_socket_family(int fd, const char* what) {
  int type = 0;
  socklen_t type_len = sizeof type;
  sockaddr_storage addr{};
  socklen_t addr_len = sizeof addr;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) != 0 || type != SOCK_STREAM ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) {
    throw Error(codes::kIo, std::string(what) + ": not a stream socket");
  }
  return addr.ss_family;
}

}  // namespace

// ---- HttpServer -------------------------------------------------------------------------------

HttpServer::HttpServer(asio::io_context& ioc, HttpHandler& handler, HttpLimits limits, TlsIdentitySource* tls)
    : ioc_(ioc), handler_(handler), limits_(limits), tls_(tls), acceptor_(ioc), state_(std::make_shared<State>()) {}

HttpServer::~HttpServer() = default;

uint16_t HttpServer::listen(const std::string& host, uint16_t port) {
  error_code ec;
  std::string h = host == "localhost" ? "127.0.0.1" : host;
  auto addr = asio::ip::make_address(h, ec);
  if (ec) throw Error(codes::kIo, "invalid listen address '" + host + "'");
  const Protocol::endpoint ep{tcp::endpoint(addr, port)};
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw Error(codes::kIo, "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  transport_ = Transport::kTcp;
  const Protocol::endpoint bound = acceptor_.local_endpoint();
  const auto* sa = bound.data();
  return sa->sa_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6*>(sa)->sin6_port)
                                   : ntohs(reinterpret_cast<const sockaddr_in*>(sa)->sin_port);
}

uint32_t HttpServer::listen_vsock(uint32_t port) {
  sockaddr_vm addr{};
  addr.svm_family = AF_VSOCK;
  addr.svm_cid = VMADDR_CID_ANY;
  addr.svm_port = port;
  const Protocol::endpoint ep(&addr, sizeof addr);
  const std::string shown = port == kVsockPortAny ? "an ephemeral vsock port" : "vsock port " + std::to_string(port);
  error_code ec;
  acceptor_.open(ep.protocol(), ec);
  if (ec) {
    throw Error(codes::kIo, "cannot listen on " + shown + ": " + ec.message() +
                                (ec == asio::error::address_family_not_supported ? " (the kernel has no vsock transport)" : ""));
  }
  acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    acceptor_.close();
    throw Error(codes::kIo, "cannot listen on " + shown + ": " + ec.message());
  }
  transport_ = Transport::kVsock;
  const Protocol::endpoint bound = acceptor_.local_endpoint(ec);
  if (ec || bound.data()->sa_family != AF_VSOCK) throw Error(codes::kIo, "cannot read the bound vsock port");
  return reinterpret_cast<const sockaddr_vm*>(bound.data())->svm_port;
}

void HttpServer::listen_fd(int fd) {
  int family = 0;
  try {
    family = stream_socket_family(fd, "listen_fd");
  } catch (const Error&) {
    ::close(fd);
    throw;
  }
  int listening = 0;
  socklen_t len = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) {
    ::close(fd);
    throw Error(codes::kIo, "listen_fd: the socket is not listening");
  }
  error_code ec;
  acceptor_.assign(Protocol(family, 0), fd, ec);
  if (ec) {
    ::close(fd);
    throw Error(codes::kIo, "listen_fd: " + ec.message());
  }
  transport_ = transport_of(family);
}

void HttpServer::serve_fd(int fd) {
  int family = 0;
  try {
    family = stream_socket_family(fd, "serve_fd");
  } catch (const Error&) {
    ::close(fd);
    throw;
  }
  error_code ec;
  Protocol::socket socket(asio::make_strand(ioc_));
  socket.assign(Protocol(family, 0), fd, ec);
  if (ec) {
    ::close(fd);
    throw Error(codes::kIo, "serve_fd: " + ec.message());
  }
  serve(std::move(socket), transport_of(family));
}

void HttpServer::start() { asio::co_spawn(ioc_, accept_loop(), asio::detached); }

void HttpServer::stop_accepting() {
  state_->stopping = true;
  asio::post(acceptor_.get_executor(), [this] {
    error_code ec;
    acceptor_.close(ec);
  });
}

void HttpServer::serve(Protocol::socket socket, Transport transport) {
  error_code ec;
  if (transport == Transport::kTcp) socket.set_option(tcp::no_delay(true), ec);
  if (tls_ == nullptr) {
    auto conn = std::make_shared<Connection<PlainStream>>(PlainStream(std::move(socket)), transport, nullptr, handler_,
                                                          limits_, state_);
    auto ex = conn->lowest().get_executor();
    asio::co_spawn(ex, Connection<PlainStream>::run(std::move(conn)), asio::detached);
    return;
  }
  std::shared_ptr<TlsIdentity> identity;
  try {
    identity = tls_->current();
  } catch (const std::exception&) {
    return;  // no identity (e.g. the platform failed to attest a new key): refuse the connection
  }
  TlsStream stream(PlainStream(std::move(socket)), identity->context);
  auto conn = std::make_shared<Connection<TlsStream>>(std::move(stream), transport, std::move(identity), handler_,
                                                      limits_, state_);
  auto ex = conn->lowest().get_executor();
  asio::co_spawn(ex, Connection<TlsStream>::run(std::move(conn)), asio::detached);
}

asio::awaitable<void> HttpServer::accept_loop() {
  if (!acceptor_.is_open()) co_return;  // no listener (e.g. a server that is only handed sockets)
  for (;;) {
    error_code ec;
    Protocol::socket socket = co_await acceptor_.async_accept(asio::make_strand(ioc_),
                                                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (!acceptor_.is_open() || state_->stopping) co_return;
      // e.g. EMFILE: back off briefly, then keep accepting.
      asio::steady_timer backoff(ioc_, std::chrono::milliseconds(50));
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    serve(std::move(socket), transport_);
  }
}

}  // namespace a3s::power::server

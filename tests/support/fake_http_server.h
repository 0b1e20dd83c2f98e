// A fake HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for tests of HTTP clients: the one place
// in the tests that listens, accepts, reads requests and writes answers.
//
// FakeHttpServer accepts connections on a thread of its own, reads each connection's one request
// (the head and a Content-Length body), records it, and hands it to a handler that writes the
// answer; the connection is then closed. Connections are served one at a time, or each on a thread
// of its own (`concurrent`). Three handlers are built in:
// - ScriptedHttpServer: each connection gets a scripted list of byte pieces, written one at a time
//   (so a response can be split anywhere); a piece equal to kHold waits until the client hangs up.
// - RoutedHttpServer: GET answers by exact request target (path and query) from a table, 404
//   otherwise (stands in for AMD KDS / Intel PCS in the verifier's tests).
// - FileHttpServer: one body at every path ending in ".gguf" (404 elsewhere), "Range: bytes=N-"
//   (206 / 416), cut connections after a number of body bytes, slowed transfers (store pulls).
// http_response(), http_chunked_head() and chunk() build the bytes of scripted answers, and
// unused_port() is a loopback port nothing listens on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace a3s::power::testing {

// What a connection sent: its raw bytes (head and body) and the parsed request line and headers.
struct HttpRequest {
  std::string raw;
  bool complete = false;  // the head (and the announced body) arrived before the client stopped
  std::string method, target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased, values trimmed
  // The value of header `name` (lowercase), "" when absent.
  std::string header(const std::string& name) const;
};

// The accepted connection a handler answers on.
class HttpConnection {
 public:
  HttpConnection(int fd, const std::atomic<bool>& stop) : fd_(fd), stop_(stop) {}
  // Writes all of `bytes`; false once the client has gone.
  bool send(const std::string& bytes);
  bool send(const char* data, std::size_t n);
  // Waits until the client closes its end (or the server is being destroyed).
  void hold_until_client_closes();

 private:
  int fd_;
  const std::atomic<bool>& stop_;
};

class FakeHttpServer {
 public:
  // Called once per connection, with the number of connections served before it.
  using Handler = std::function<void(const HttpRequest&, std::size_t index, HttpConnection&)>;

  explicit FakeHttpServer(Handler handler, bool concurrent = false);
  virtual ~FakeHttpServer();
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "") const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::vector<std::string> requests() const;  // head + body of each request so far, in order
  std::vector<std::string> targets() const;   // request targets so far, in order
  int complete_requests() const;              // requests whose head arrived whole

 protected:
  std::vector<HttpRequest> recorded() const;  // every request so far, in order

  // Stops accepting and joins every connection; a derived class whose handler uses its own members
  // calls this first in its destructor.
  void stop();

 private:
  void accept_loop();
  void serve(int fd, std::size_t index);

  Handler handler_;
  bool concurrent_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  bool stopped_ = false;
  mutable std::mutex mu_;
  std::vector<HttpRequest> requests_;
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

inline const std::string kHold = "<hold until the client hangs up>";

class ScriptedHttpServer : public FakeHttpServer {
 public:
  // Connection i gets scripts[i] (the last script once they run out) as its response.
  explicit ScriptedHttpServer(std::vector<std::vector<std::string>> scripts);
  // Every connection gets `pieces`.
  explicit ScriptedHttpServer(std::vector<std::string> pieces)
      : ScriptedHttpServer(std::vector<std::vector<std::string>>{std::move(pieces)}) {}
};

struct HttpRoute {
  int status = 200;
  std::string content_type = "application/octet-stream";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class RoutedHttpServer : public FakeHttpServer {
 public:
  explicit RoutedHttpServer(std::map<std::string, HttpRoute> routes);
};

// Serves each connection on a thread of its own, "Connection: close". Counts only requests whose
// head arrived whole.
class FileHttpServer : public FakeHttpServer {
 public:
  explicit FileHttpServer(std::string body);
  ~FileHttpServer() override { stop(); }

  // The next `count` responses close the connection after `bytes` body bytes.
  void cut_after(uint64_t bytes, int count = 1);
  void set_honour_range(bool on) { honour_range_ = on; }      // false: always 200 with the full body
  void set_content_length(bool on) { content_length_ = on; }  // false: close-delimited body
  void set_pause_per_chunk_us(int us) { pause_us_ = us; }     // slows transfers (16 KiB chunks)
  void set_body(std::string body);

  std::string url(const std::string& path = "/models/stories260K.gguf") const { return FakeHttpServer::url(path); }
  int request_count() const { return complete_requests(); }
  int full_bodies_sent() const { return full_bodies_; }  // responses that sent the whole body from 0
  std::vector<std::string> range_headers() const;        // Range header values received, in order
  std::vector<std::string> paths() const;                // request targets received, in order

 private:
  void answer(const HttpRequest& req, HttpConnection& c);

  mutable std::mutex body_mu_;
  std::string body_;
  uint64_t cut_bytes_ = 0;
  int cut_count_ = 0;
  std::atomic<bool> honour_range_{true}, content_length_{true};
  std::atomic<int> pause_us_{0};
  std::atomic<int> full_bodies_{0};
};

// An HTTP/1.1 response head + body with Content-Length.
std::string http_response(int status, const std::string& content_type, const std::string& body);
// The head of a chunked response (pieces then need chunk framing, see chunk()).
std::string http_chunked_head(int status, const std::string& content_type);
std::string chunk(const std::string& data);  // one chunk; chunk("") is the last chunk

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
int unused_port();

}  // namespace a3s::power::testing

#include "support/fake_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace a3s::power::testing {
namespace {

int listen_loopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    throw std::runtime_error("bind/listen failed");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Parses the request line and headers of `r.raw` (the head ends at `head_end`).
void parse_head(HttpRequest& r, std::size_t head_end) {
  const std::string head = r.raw.substr(0, head_end);
  std::size_t eol = head.find("\r\n");
  const std::string line = head.substr(0, eol);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp2 != std::string::npos) {
    r.method = line.substr(0, sp1);
    r.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  }
  while (eol != std::string::npos) {
    const std::size_t next = head.find("\r\n", eol + 2);
    const std::string h = head.substr(eol + 2, next == std::string::npos ? std::string::npos : next - eol - 2);
    const auto colon = h.find(':');
    if (colon != std::string::npos) r.headers.emplace_back(lower(h.substr(0, colon)), trim(h.substr(colon + 1)));
    eol = next;
  }
}

// Reads one request: the head up to the blank line and a Content-Length body. Waits as long as the
// client sends (checking `stop` regularly); returns what arrived when the client stops sending.
HttpRequest read_request(int fd, const std::atomic<bool>& stop) {
  HttpRequest r;
  char buf[4096];
  std::size_t needed = std::string::npos;
  constexpr std::size_t kMaxHead = 64u << 10;
  while (!stop) {
    if (needed == std::string::npos) {
      const std::size_t head_end = r.raw.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        parse_head(r, head_end);
        needed = head_end + 4 + std::strtoul(r.header("content-length").c_str(), nullptr, 10);
      } else if (r.raw.size() >= kMaxHead) {
        parse_head(r, r.raw.size());
        r.complete = true;
        return r;
      }
    }
    if (needed != std::string::npos && r.raw.size() >= needed) {
      r.complete = true;
      return r;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    r.raw.append(buf, static_cast<std::size_t>(n));
  }
  if (needed == std::string::npos) {
    if (const std::size_t e = r.raw.find("\r\n\r\n"); e != std::string::npos) parse_head(r, e);
  }
  return r;
}

// The reason phrase of the statuses the tests script ("Status" for the others).
const char* reason(int status) {
  static const std::map<int, const char*> phrases = {
      {200, "OK"}, {401, "Unauthorized"}, {404, "Not Found"}, {500, "Internal Server Error"}};
  const auto it = phrases.find(status);
  return it == phrases.end() ? "Status" : it->second;
}

std::vector<std::vector<std::string>> non_empty(std::vector<std::vector<std::string>> scripts) {
  if (scripts.empty()) throw std::invalid_argument("no script");
  return scripts;
}

}  // namespace

std::string HttpRequest::header(const std::string& name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return "";
}

bool HttpConnection::send(const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd_, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool HttpConnection::send(const std::string& bytes) { return send(bytes.data(), bytes.size()); }

void HttpConnection::hold_until_client_closes() {
  char c;
  while (!stop_) {
    pollfd q{fd_, POLLIN, 0};
    if (::poll(&q, 1, 50) > 0 && ::recv(fd_, &c, 1, 0) <= 0) break;
  }
}

FakeHttpServer::FakeHttpServer(Handler handler, bool concurrent)
    : handler_(std::move(handler)), concurrent_(concurrent) {
  listen_fd_ = listen_loopback(&port_);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FakeHttpServer::~FakeHttpServer() { stop(); }

void FakeHttpServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> g(mu_);
    workers.swap(workers_);
  }
  for (auto& t : workers) t.join();
  ::close(listen_fd_);
}

std::vector<HttpRequest> FakeHttpServer::recorded() const {
  std::lock_guard<std::mutex> g(mu_);
  return requests_;
}

std::vector<std::string> FakeHttpServer::requests() const {
  std::vector<std::string> out;
  for (const HttpRequest& r : recorded()) out.push_back(r.raw);
  return out;
}

std::vector<std::string> FakeHttpServer::targets() const {
  std::vector<std::string> out;
  for (const HttpRequest& r : recorded()) out.push_back(r.target);
  return out;
}

int FakeHttpServer::complete_requests() const {
  const auto all = recorded();
  return static_cast<int>(std::count_if(all.begin(), all.end(), [](const HttpRequest& r) { return r.complete; }));
}

void FakeHttpServer::accept_loop() {
  std::size_t index = 0;
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;  // wake up regularly to see stop_
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (concurrent_) {
      std::lock_guard<std::mutex> g(mu_);
      workers_.emplace_back([this, fd, index] { serve(fd, index); });
    } else {
      serve(fd, index);
    }
    ++index;
  }
}

void FakeHttpServer::serve(int fd, std::size_t index) {
  HttpRequest req = read_request(fd, stop_);
  {
    std::lock_guard<std::mutex> g(mu_);
    requests_.push_back(req);
  }
  HttpConnection c(fd, stop_);
  handler_(req, index, c);
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

ScriptedHttpServer::ScriptedHttpServer(std::vector<std::vector<std::string>> scripts)
    : FakeHttpServer([scripts = non_empty(std::move(scripts))](const HttpRequest&, std::size_t index,
                                                                 HttpConnection& c) {
        for (const auto& piece : scripts[std::min(index, scripts.size() - 1)]) {
          if (piece == kHold) {
            c.hold_until_client_closes();
            continue;
          }
          if (!c.send(piece)) break;
          ::usleep(1000);  // separate TCP segments, so the client sees the pieces as separate reads
        }
      }) {}

RoutedHttpServer::RoutedHttpServer(std::map<std::string, HttpRoute> routes)
    : FakeHttpServer([routes = std::move(routes)](const HttpRequest& req, std::size_t, HttpConnection& c) {
        HttpRoute e{404, "text/plain", {}, "not found"};
        if (auto it = routes.find(req.target); it != routes.end()) e = it->second;
        std::string response = "HTTP/1.1 " + std::to_string(e.status) + (e.status == 200 ? " OK" : " Error") +
                               "\r\nContent-Type: " + e.content_type +
                               "\r\nContent-Length: " + std::to_string(e.body.size()) + "\r\nConnection: close\r\n";
        for (const auto& [k, v] : e.headers) response += k + ": " + v + "\r\n";
        response += "\r\n" + e.body;
        c.send(response);
      }) {}

FileHttpServer::FileHttpServer(std::string body)
    : FakeHttpServer([this](const HttpRequest& req, std::size_t, HttpConnection& c) { answer(req, c); },
                     /*concurrent=*/true),
      body_(std::move(body)) {}

void FileHttpServer::cut_after(uint64_t bytes, int count) {
  std::lock_guard<std::mutex> g(body_mu_);
  cut_bytes_ = bytes;
  cut_count_ = count;
}

void FileHttpServer::set_body(std::string body) {
  std::lock_guard<std::mutex> g(body_mu_);
  body_ = std::move(body);
}

std::vector<std::string> FileHttpServer::range_headers() const {
  std::vector<std::string> out;
  for (const HttpRequest& r : recorded())
    if (r.complete && !r.header("range").empty()) out.push_back(r.header("range"));
  return out;
}

std::vector<std::string> FileHttpServer::paths() const {
  std::vector<std::string> out;
  for (const HttpRequest& r : recorded())
    if (r.complete) out.push_back(r.target);
  return out;
}

void FileHttpServer::answer(const HttpRequest& req, HttpConnection& c) {
  if (!req.complete) return;
  const std::string& target = req.target;
  const std::string range = req.header("range");
  std::string body;
  uint64_t cut = 0;
  {
    std::lock_guard<std::mutex> g(body_mu_);
    body = body_;
    if (cut_count_ > 0) {
      cut = cut_bytes_;
      --cut_count_;
    }
  }
  const bool is_model = target.size() > 5 && target.compare(target.size() - 5, 5, ".gguf") == 0;
  if (!is_model) {
    c.send("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
    return;
  }
  uint64_t start = 0;
  std::string head;
  if (!range.empty() && honour_range_ && range.rfind("bytes=", 0) == 0 && range.back() == '-') {
    start = std::stoull(range.substr(6, range.size() - 7));
    if (start >= body.size()) {
      c.send("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" + std::to_string(body.size()) +
             "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(start) + "-" +
           std::to_string(body.size() - 1) + "/" + std::to_string(body.size()) + "\r\n";
  } else {
    head = "HTTP/1.1 200 OK\r\n";
  }
  if (content_length_) head += "Content-Length: " + std::to_string(body.size() - start) + "\r\n";
  head += "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n";
  if (!c.send(head)) return;
  const uint64_t limit = cut > 0 ? std::min<uint64_t>(body.size(), start + cut) : body.size();
  constexpr std::size_t kChunk = 16384;
  for (uint64_t off = start; off < limit;) {
    const auto n = static_cast<std::size_t>(std::min<uint64_t>(kChunk, limit - off));
    // A whole body is counted before its last chunk goes out: a client that has read it all may
    // look at the count at once.
    if (start == 0 && limit == body.size() && off + n == limit) ++full_bodies_;
    if (!c.send(body.data() + off, n)) return;
    off += n;
    if (pause_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us_.load()));
  }
}

std::string http_response(int status, const std::string& content_type, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

std::string http_chunked_head(int status, const std::string& content_type) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\nContent-Type: " + content_type +
         "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
}

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

int unused_port() {
  int port = 0;
  ::close(listen_loopback(&port));
  return port;
}

}  // namespace a3s::power::testing

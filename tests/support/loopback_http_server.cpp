#include "support/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>

namespace a3s::power::store::testing {
namespace {

bool send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(std::string body) : body_(std::move(body)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0)
    throw std::runtime_error("bind/listen failed");
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
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

std::string LoopbackHttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void LoopbackHttpServer::cut_after(uint64_t bytes, int count) {
  std::lock_guard<std::mutex> g(mu_);
  cut_bytes_ = bytes;
  cut_count_ = count;
}

void LoopbackHttpServer::set_body(std::string body) {
  std::lock_guard<std::mutex> g(mu_);
  body_ = std::move(body);
}

std::vector<std::string> LoopbackHttpServer::range_headers() const {
  std::lock_guard<std::mutex> g(mu_);
  return ranges_;
}

std::vector<std::string> LoopbackHttpServer::paths() const {
  std::lock_guard<std::mutex> g(mu_);
  return paths_;
}

void LoopbackHttpServer::accept_loop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> g(mu_);
    workers_.emplace_back([this, fd] {
      serve(fd);
      ::close(fd);
    });
  }
}

void LoopbackHttpServer::serve(int fd) {
  std::string req;
  char buf[4096];
  while (req.find("\r\n\r\n") == std::string::npos && req.size() < 65536) {
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r <= 0) return;
    req.append(buf, static_cast<size_t>(r));
  }
  ++requests_;
  const size_t sp1 = req.find(' '), sp2 = req.find(' ', sp1 + 1);
  const std::string target = req.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string range;
  for (size_t pos = req.find("\r\n"); pos != std::string::npos && pos + 2 < req.size();) {
    const size_t end = req.find("\r\n", pos + 2);
    const std::string line = req.substr(pos + 2, end - pos - 2);
    const size_t colon = line.find(':');
    if (colon != std::string::npos && lower(line.substr(0, colon)) == "range") {
      range = line.substr(colon + 1);
      while (!range.empty() && range.front() == ' ') range.erase(0, 1);
    }
    pos = end;
  }
  std::string body;
  uint64_t cut = 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    paths_.push_back(target);
    if (!range.empty()) ranges_.push_back(range);
    body = body_;
    if (cut_count_ > 0) {
      cut = cut_bytes_;
      --cut_count_;
    }
  }
  const bool is_model = target.size() > 5 && target.compare(target.size() - 5, 5, ".gguf") == 0;
  if (!is_model) {
    const std::string r = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found";
    send_all(fd, r.data(), r.size());
    return;
  }
  uint64_t start = 0;
  std::string head;
  if (!range.empty() && honour_range_ && range.rfind("bytes=", 0) == 0 && range.back() == '-') {
    start = std::stoull(range.substr(6, range.size() - 7));
    if (start >= body.size()) {
      head = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" + std::to_string(body.size()) +
             "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      send_all(fd, head.data(), head.size());
      return;
    }
    head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(start) + "-" +
           std::to_string(body.size() - 1) + "/" + std::to_string(body.size()) + "\r\n";
  } else {
    head = "HTTP/1.1 200 OK\r\n";
  }
  if (content_length_) head += "Content-Length: " + std::to_string(body.size() - start) + "\r\n";
  head += "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n";
  if (!send_all(fd, head.data(), head.size())) return;
  const uint64_t limit = cut > 0 ? std::min<uint64_t>(body.size(), start + cut) : body.size();
  constexpr size_t kChunk = 16384;
  for (uint64_t off = start; off < limit;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, limit - off));
    if (!send_all(fd, body.data() + off, n)) return;
    off += n;
    if (pause_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(pause_us_.load()));
  }
  if (start == 0 && limit == body.size()) ++full_bodies_;
  ::shutdown(fd, SHUT_WR);
}

}  // namespace a3s::power::store::testing

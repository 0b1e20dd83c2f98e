#include "support/scripted_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace a3s::power::client::testing {
namespace {

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 500:
      return "Internal Server Error";
    default:
      return "Status";
  }
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads one request: the head up to the blank line and a Content-Length body.
std::string read_request(int fd) {
  std::string req;
  char buf[4096];
  std::size_t body_needed = std::string::npos;
  for (;;) {
    const std::size_t head_end = req.find("\r\n\r\n");
    if (head_end != std::string::npos && body_needed == std::string::npos) {
      body_needed = 0;
      std::string lower;
      for (std::size_t i = 0; i < head_end; ++i) lower += static_cast<char>(std::tolower(req[i]));
      if (auto p = lower.find("content-length:"); p != std::string::npos) {
        body_needed = std::strtoul(lower.c_str() + p + 15, nullptr, 10);
      }
      body_needed += head_end + 4;
    }
    if (body_needed != std::string::npos && req.size() >= body_needed) return req;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return req;
    req.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

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

ScriptedHttpServer::ScriptedHttpServer(std::vector<std::vector<std::string>> scripts)
    : scripts_(std::move(scripts)) {
  if (scripts_.empty()) throw std::invalid_argument("no script");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 8) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("bind/listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::vector<std::string> ScriptedHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void ScriptedHttpServer::serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;  // wake up regularly to see stop_
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::string req = read_request(fd);
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(req);
    }
    const auto& pieces = scripts_[std::min(requests_.size() - 1, scripts_.size() - 1)];
    for (const auto& piece : pieces) {
      if (piece == kHold) {
        // Wait for the client to close its end (or the test to end).
        char c;
        while (!stop_) {
          pollfd q{fd, POLLIN, 0};
          if (::poll(&q, 1, 50) > 0 && ::recv(fd, &c, 1, 0) <= 0) break;
        }
        continue;
      }
      if (!write_all(fd, piece)) break;
      ::usleep(1000);  // separate TCP segments, so the client sees the pieces as separate reads
    }
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }
}

}  // namespace a3s::power::client::testing

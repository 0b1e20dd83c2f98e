#include "endorsement_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace a3s::power::verify_cli {
namespace {

int listen_loopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    throw std::runtime_error("bind/listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

std::string read_head(int fd) {
  std::string req;
  char buf[4096];
  while (req.find("\r\n\r\n") == std::string::npos && req.size() < (64u << 10)) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    req.append(buf, static_cast<std::size_t>(n));
  }
  return req;
}

void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

}  // namespace

EndorsementServer::EndorsementServer(std::map<std::string, Endpoint> routes) : routes_(std::move(routes)) {
  listen_fd_ = listen_loopback(&port_);
  thread_ = std::thread([this] { serve(); });
}

EndorsementServer::~EndorsementServer() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
}

std::vector<std::string> EndorsementServer::targets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_;
}

void EndorsementServer::serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const std::string head = read_head(fd);
    // "GET /target HTTP/1.1"
    const auto sp1 = head.find(' ');
    const auto sp2 = sp1 == std::string::npos ? std::string::npos : head.find(' ', sp1 + 1);
    const std::string target = sp2 == std::string::npos ? "" : head.substr(sp1 + 1, sp2 - sp1 - 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      targets_.push_back(target);
    }
    Endpoint e{404, "text/plain", {}, "not found"};
    if (auto it = routes_.find(target); it != routes_.end()) e = it->second;
    std::string response = "HTTP/1.1 " + std::to_string(e.status) + (e.status == 200 ? " OK" : " Error") +
                           "\r\nContent-Type: " + e.content_type +
                           "\r\nContent-Length: " + std::to_string(e.body.size()) + "\r\nConnection: close\r\n";
    for (const auto& [k, v] : e.headers) response += k + ": " + v + "\r\n";
    response += "\r\n" + e.body;
    write_all(fd, response);
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
  }
}

int unused_port() {
  int port = 0;
  const int fd = listen_loopback(&port);
  ::close(fd);
  return port;
}

}  // namespace a3s::power::verify_cli

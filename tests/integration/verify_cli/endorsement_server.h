// A loopback HTTP server standing in for AMD KDS / Intel PCS in the verifier's online tests: answers
// GET requests by their exact target (path and query) from a table, 404 otherwise, one request per
// connection, and records every target it was asked for.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace a3s::power::verify_cli {

struct Endpoint {
  int status = 200;
  std::string content_type = "application/octet-stream";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class EndorsementServer {
 public:
  explicit EndorsementServer(std::map<std::string, Endpoint> routes);
  ~EndorsementServer();
  EndorsementServer(const EndorsementServer&) = delete;
  EndorsementServer& operator=(const EndorsementServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> targets() const;  // request targets so far, in order

 private:
  void serve();

  std::map<std::string, Endpoint> routes_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<std::string> targets_;
  std::thread thread_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
int unused_port();

}  // namespace a3s::power::verify_cli

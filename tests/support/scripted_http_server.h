// A loopback HTTP server for client tests: answers each connection's first request with a
// scripted list of byte pieces (written one at a time, so a response can be split anywhere), then
// closes the connection. A piece equal to kHold makes it wait until the client hangs up. Records
// the requests it received.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace a3s::power::client::testing {

inline const std::string kHold = "<hold until the client hangs up>";

class ScriptedHttpServer {
 public:
  // Connection i gets scripts[i] (the last script once they run out) as its response.
  explicit ScriptedHttpServer(std::vector<std::vector<std::string>> scripts);
  // Every connection gets `pieces`.
  explicit ScriptedHttpServer(std::vector<std::string> pieces)
      : ScriptedHttpServer(std::vector<std::vector<std::string>>{std::move(pieces)}) {}
  ~ScriptedHttpServer();
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> requests() const;  // head + body of each request so far

 private:
  void serve();

  std::vector<std::vector<std::string>> scripts_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

// An HTTP/1.1 response head + body with Content-Length.
std::string http_response(int status, const std::string& content_type, const std::string& body);
// The head of a chunked response (pieces then need chunk framing, see chunk()).
std::string http_chunked_head(int status, const std::string& content_type);
std::string chunk(const std::string& data);  // one chunk; chunk("") is the last chunk

}  // namespace a3s::power::client::testing

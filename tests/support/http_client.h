// Test HTTP client (libcurl): plain requests, streaming reads that can abort mid-way, and SSE
// event splitting. Used by the server unit tests and the end-to-end tests.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace a3s::power::testing {

struct HttpResult {
  long status = 0;                              // 0 when the transfer failed
  std::string body;
  std::map<std::string, std::string> headers;   // lower-case names
  std::string error;                            // curl error text when the transfer failed
  bool aborted = false;                         // the data callback asked to stop
};

struct HttpOptions {
  std::vector<std::string> headers;             // "Name: value"
  long timeout_ms = 60'000;
  // Called with each received piece of the body; return false to abort (disconnect).
  std::function<bool(std::string_view)> on_data;
};

HttpResult http(const std::string& method, const std::string& url, const std::string& body = {},
                const HttpOptions& opts = {});

// A keep-alive client: consecutive requests reuse one connection.
class HttpSession {
 public:
  HttpSession();
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;
  HttpResult request(const std::string& method, const std::string& url, const std::string& body = {},
                     const HttpOptions& opts = {});
  long connects_made_by_last_request() const { return last_connects_; }

 private:
  void* curl_;
  long last_connects_ = 0;
};

// Splits an SSE body into event payloads ("data: X\n\n" → X). Returns false (and fills `problem`)
// when the framing is wrong: text outside "data: " lines or an unterminated event.
bool split_sse(const std::string& body, std::vector<std::string>& payloads, std::string& problem);

// Sends raw bytes over a fresh TCP connection and returns everything read until the server closes
// (or `timeout_ms`).
std::string raw_exchange(int port, const std::string& bytes, long timeout_ms = 10'000);

}  // namespace a3s::power::testing

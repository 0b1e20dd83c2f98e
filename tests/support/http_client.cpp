#include "support/http_client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <mutex>

namespace a3s::power::testing {
namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  HttpResult* result;
  const HttpOptions* opts;
};

size_t on_body(char* ptr, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  size_t len = size * n;
  t->result->body.append(ptr, len);
  if (t->opts->on_data && !t->opts->on_data(std::string_view(ptr, len))) {
    t->result->aborted = true;
    return 0;  // abort the transfer
  }
  return len;
}

size_t on_header(char* ptr, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  std::string line(ptr, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
    t->result->headers[name] = value;
  }
  return size * n;
}

HttpResult perform(CURL* c, const std::string& method, const std::string& url, const std::string& body,
                   const HttpOptions& opts) {
  HttpResult r;
  Transfer t{&r, &opts};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, opts.timeout_ms);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  if (method == "GET" || method == "DELETE") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  } else {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_slist* hdrs = nullptr;
  bool has_ct = false;
  for (auto& h : opts.headers) {
    hdrs = curl_slist_append(hdrs, h.c_str());
    if (h.rfind("Content-Type", 0) == 0) has_ct = true;
  }
  if (!has_ct && method == "POST") hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(hdrs);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  if (rc != CURLE_OK && !r.aborted) r.error = curl_easy_strerror(rc);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

}  // namespace

HttpResult http(const std::string& method, const std::string& url, const std::string& body,
                const HttpOptions& opts) {
  global_init();
  CURL* c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
  HttpResult r = perform(c, method, url, body, opts);
  curl_easy_cleanup(c);
  return r;
}

HttpSession::HttpSession() {
  global_init();
  curl_ = curl_easy_init();
}

HttpSession::~HttpSession() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

HttpResult HttpSession::request(const std::string& method, const std::string& url, const std::string& body,
                                const HttpOptions& opts) {
  HttpResult r = perform(static_cast<CURL*>(curl_), method, url, body, opts);
  curl_easy_getinfo(static_cast<CURL*>(curl_), CURLINFO_NUM_CONNECTS, &last_connects_);
  return r;
}

bool split_sse(const std::string& body, std::vector<std::string>& payloads, std::string& problem) {
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) {
      problem = "unterminated event at byte " + std::to_string(pos);
      return false;
    }
    std::string event = body.substr(pos, end - pos);
    if (event.rfind("data: ", 0) != 0) {
      problem = "event without 'data: ' at byte " + std::to_string(pos);
      return false;
    }
    std::string payload = event.substr(6);
    if (payload.find('\n') != std::string::npos) {
      problem = "multi-line event at byte " + std::to_string(pos);
      return false;
    }
    payloads.push_back(payload);
    pos = end + 2;
  }
  return true;
}

std::string raw_exchange(int port, const std::string& bytes, long timeout_ms) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

}  // namespace a3s::power::testing

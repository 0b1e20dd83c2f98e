#include "http_client/server_url.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "a3s/power/error.h"
#include "http_client/curl_handle.h"

namespace a3s::power::client {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Reads one part of a parsed URL; nullopt-like empty string when absent.
bool url_part(CURLU* u, CURLUPart part, std::string& out) {
  char* value = nullptr;
  if (curl_url_get(u, part, &value, 0) != CURLUE_OK || value == nullptr) return false;
  out = value;
  curl_free(value);
  return true;
}

Error bad_url(const std::string& why) {
  return Error(codes::kInvalidArgument, "invalid --url: " + why);
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  std::string h = lower(std::string(host));
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h == "localhost" || h == "localhost.") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    return std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
  }
  return false;
}

ServerUrl ServerUrl::parse(std::string_view text) {
  if (text.empty()) throw bad_url("empty");
  for (unsigned char c : text) {
    if (c <= 0x20 || c == 0x7f) throw bad_url("contains spaces or control characters");
  }
  std::string full(text);
  if (full.find("://") == std::string::npos) full = "http://" + full;

  curl_global_init_once();
  CurlUrl u(curl_url());
  if (!u) throw Error(codes::kInternal, "out of memory parsing the URL");
  if (curl_url_set(u.get(), CURLUPART_URL, full.c_str(), 0) != CURLUE_OK) {
    throw bad_url("not a valid http(s) URL");
  }
  ServerUrl out;
  std::string tmp;
  if (!url_part(u.get(), CURLUPART_SCHEME, out.scheme_)) throw bad_url("no scheme");
  out.scheme_ = lower(out.scheme_);
  if (out.scheme_ != "http" && out.scheme_ != "https") throw bad_url("the scheme must be http or https");
  if (url_part(u.get(), CURLUPART_USER, tmp) || url_part(u.get(), CURLUPART_PASSWORD, tmp)) {
    throw bad_url("credentials in the URL are not supported (use --api-key or A3S_POWER_API_KEY)");
  }
  if (url_part(u.get(), CURLUPART_QUERY, tmp) || url_part(u.get(), CURLUPART_FRAGMENT, tmp)) {
    throw bad_url("a query or fragment is not allowed");
  }
  if (!url_part(u.get(), CURLUPART_HOST, out.host_) || out.host_.empty()) throw bad_url("no host");
  if (url_part(u.get(), CURLUPART_PORT, tmp)) {
    out.port_ = std::atoi(tmp.c_str());
  } else {
    out.port_ = out.scheme_ == "https" ? 443 : 80;
  }
  if (out.port_ <= 0 || out.port_ > 65535) throw bad_url("port out of range");
  if (url_part(u.get(), CURLUPART_PATH, out.prefix_)) {
    while (!out.prefix_.empty() && out.prefix_.back() == '/') out.prefix_.pop_back();
  }
  if (out.scheme_ == "http" && !is_loopback_host(out.host_)) {
    throw bad_url("plain http is only allowed to a loopback host; use https for a remote server");
  }
  return out;
}

std::string ServerUrl::endpoint(std::string_view path) const {
  std::string s = display() + prefix_;
  if (path.empty() || path.front() != '/') s += '/';
  s.append(path);
  return s;
}

std::string ServerUrl::display() const {
  return scheme_ + "://" + host_ + ":" + std::to_string(port_);
}

}  // namespace a3s::power::client

#include "http_client/server_url.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "a3s/power/error.h"
#include "http_client/http_client_built.h"
#if A3S_HTTP_CLIENT_WITH_CURL
#include "http_client/curl_handle.h"
#endif

namespace a3s::power::client {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

#if A3S_HTTP_CLIENT_WITH_CURL
// Reads one part of a parsed URL; nullopt-like empty string when absent.
bool url_part(CURLU* u, CURLUPart part, std::string& out) {
  char* value = nullptr;
  if (curl_url_get(u, part, &value, 0) != CURLUE_OK || value == nullptr) return false;
  out = value;
  curl_free(value);
  return true;
}
#endif

Error bad_url(const std::string& why) {
  return Error(codes::kInvalidArgument, "invalid --url: " + why);
}

// A decimal 32-bit vsock CID or port ("0".."4294967294"; 4294967295 is VMADDR_CID_ANY / PORT_ANY).
bool parse_vsock_number(std::string_view text, uint32_t& out) {
  if (text.empty() || text.size() > 10) return false;
  uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v >= 0xFFFFFFFFull) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

constexpr std::string_view kVsockScheme = "vsock://";

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
  if (lower(std::string(text.substr(0, kVsockScheme.size()))) == kVsockScheme) {
    // vsock://CID:PORT[/PREFIX]: no host names, user information, query or fragment.
    std::string_view rest = text.substr(kVsockScheme.size());
    const size_t slash = rest.find('/');
    const std::string_view authority = rest.substr(0, slash);
    const std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos)
      throw bad_url("credentials in the URL are not supported (use --api-key or A3S_POWER_API_KEY)");
    if (path.find_first_of("?#") != std::string_view::npos) throw bad_url("a query or fragment is not allowed");
    const size_t colon = authority.find(':');
    ServerUrl out;
    if (colon == std::string_view::npos || !parse_vsock_number(authority.substr(0, colon), out.vsock_cid_) ||
        !parse_vsock_number(authority.substr(colon + 1), out.vsock_port_)) {
      throw bad_url("a vsock URL is vsock://CID:PORT, two decimal numbers below 4294967295");
    }
    out.scheme_ = "vsock";
    out.host_ = std::to_string(out.vsock_cid_);
    out.prefix_ = std::string(path);
    while (!out.prefix_.empty() && out.prefix_.back() == '/') out.prefix_.pop_back();
    return out;
  }
  std::string full(text);
  if (full.find("://") == std::string::npos) full = "http://" + full;

#if !A3S_HTTP_CLIENT_WITH_CURL
  require_http_client("the HTTP client (http:// and https:// URLs)");
  throw Error(codes::kInternal, "unreachable");
#else
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
  if (out.scheme_ != "http" && out.scheme_ != "https") throw bad_url("the scheme must be http, https or vsock");
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
#endif
}

bool ServerUrl::is_local() const {
  return is_vsock() ? vsock_cid_ == 1 : is_loopback_host(host_);
}

std::string ServerUrl::endpoint(std::string_view path) const {
  std::string s = display() + prefix_;
  if (path.empty() || path.front() != '/') s += '/';
  s.append(path);
  return s;
}

std::string ServerUrl::display() const {
  return scheme_ + "://" + host_ + ":" + std::to_string(is_vsock() ? vsock_port_ : static_cast<uint32_t>(port_));
}

}  // namespace a3s::power::client

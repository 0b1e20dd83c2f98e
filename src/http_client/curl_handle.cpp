#include "http_client/curl_handle.h"

#include <mutex>

#include "a3s/power/error.h"

namespace a3s::power::client {

void curl_global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw Error(codes::kInternal, "cannot initialise libcurl");
    }
  });
}

CurlEasy make_curl_easy() {
  curl_global_init_once();
  CurlEasy h(curl_easy_init());
  if (!h) throw Error(codes::kInternal, "cannot create a libcurl handle");
  return h;
}

void CurlHeaders::append(const std::string& line) {
  curl_slist* next = curl_slist_append(list_.get(), line.c_str());
  if (next == nullptr) throw Error(codes::kInternal, "out of memory building request headers");
  (void)list_.release();  // curl_slist_append returned the same head (or a new one for an empty list)
  list_.reset(next);
}

void set_transfer_options(CURL* c, const TransferOptions& o) {
  curl_easy_setopt(c, CURLOPT_URL, o.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, o.protocols);
  if (o.max_redirects > 0) {
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, o.max_redirects);
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https");
  } else {
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  }
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, o.verify_peer ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, o.verify_peer ? 2L : 0L);
  curl_easy_setopt(c, CURLOPT_SSLVERSION, o.tls_version);
  if (!o.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, o.ca_file.c_str());
  if (!o.pinned_public_key.empty()) curl_easy_setopt(c, CURLOPT_PINNEDPUBLICKEY, o.pinned_public_key.c_str());
  if (o.fresh_connection) {
    curl_easy_setopt(c, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
  }
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (o.no_proxy) curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  if (!o.abstract_unix_socket.empty())
    curl_easy_setopt(c, CURLOPT_ABSTRACT_UNIX_SOCKET, o.abstract_unix_socket.c_str());
  if (o.connect_timeout_ms > 0) curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o.timeout_ms);
  if (o.stall_timeout_s > 0) {
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o.stall_timeout_s);
  }
  curl_easy_setopt(c, CURLOPT_USERAGENT, o.user_agent);
  if (o.headers != nullptr) curl_easy_setopt(c, CURLOPT_HTTPHEADER, o.headers->get());
}

void set_receivers(CURL* c, curl_write_callback on_header, curl_write_callback on_body, void* user) {
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, user);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, user);
}

std::string_view trim_header_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

}  // namespace a3s::power::client

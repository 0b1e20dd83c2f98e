// RAII owners for libcurl objects (easy handle, header list), the one-time global init, and the
// connection options every libcurl transfer of A3S Power sets (set_transfer_options).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>
#include <string_view>

namespace a3s::power::client {

// curl_global_init once per process (thread-safe). Throws Error(codes::kInternal) on failure.
void curl_global_init_once();

struct CurlEasyDeleter {
  void operator()(CURL* c) const noexcept { curl_easy_cleanup(c); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
struct CurlUrlDeleter {
  void operator()(CURLU* u) const noexcept { curl_url_cleanup(u); }
};

using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlUrl = std::unique_ptr<CURLU, CurlUrlDeleter>;

// A fresh easy handle. Throws Error(codes::kInternal) when libcurl cannot allocate one.
CurlEasy make_curl_easy();

// A header list that owns its nodes. append() throws Error(codes::kInternal) on allocation failure.
class CurlHeaders {
 public:
  void append(const std::string& line);
  curl_slist* get() const { return list_.get(); }

 private:
  std::unique_ptr<curl_slist, CurlSlistDeleter> list_;
};

// How one transfer reaches its server. The defaults are the strict ones: https only, no redirects,
// the peer certificate and host name verified, no limit on the whole transfer.
struct TransferOptions {
  std::string url;
  const char* protocols = "https";  // CURLOPT_PROTOCOLS_STR, e.g. "https" or "http,https"
  long max_redirects = 0;           // 0: redirects are not followed; else at most this many, to https only
  bool verify_peer = true;          // false only where trust comes from elsewhere (RA-TLS evidence)
  long tls_version = CURL_SSLVERSION_DEFAULT;  // CURLOPT_SSLVERSION: the lowest TLS version accepted
  std::string ca_file;                         // CA certificates (PEM) to trust; empty: the system store
  // CURLOPT_PINNEDPUBLICKEY ("sha256//<base64 of the SPKI digest>"): the peer's key must be this one,
  // checked in the handshake before any request byte is sent (also when verify_peer is false).
  std::string pinned_public_key;
  bool fresh_connection = false;  // a new connection and TLS session, never reused afterwards
  bool no_proxy = false;          // reach the host directly, whatever the proxy environment says
  // CURLOPT_ABSTRACT_UNIX_SOCKET: connect to this abstract Unix socket instead of the URL's host (a
  // StreamBridge's name, server_route.h); empty: the URL's host.
  std::string abstract_unix_socket;
  long connect_timeout_ms = 0;    // TCP + TLS handshake; 0: libcurl's default
  long timeout_ms = 0;            // the whole transfer; 0: none
  long stall_timeout_s = 0;       // abort when no byte arrives for this many seconds; 0: never
  const char* user_agent = "a3s-power";
  const CurlHeaders* headers = nullptr;  // request headers; must outlive the transfer
};

// Sets `o` on the easy handle `c` (libcurl copies the strings), and CURLOPT_NOSIGNAL, which every
// transfer of a multi-threaded process needs. The caller adds the method, the body and the callbacks.
void set_transfer_options(CURL* c, const TransferOptions& o);

// Routes the response's header lines and body bytes to the two callbacks, with `user` as their data.
void set_receivers(CURL* c, curl_write_callback on_header, curl_write_callback on_body, void* user);

// `s` without the optional white space (space, tab) before it and the white space and line end after
// it: the value of a header line as a libcurl header callback receives it.
std::string_view trim_header_text(std::string_view s);

}  // namespace a3s::power::client

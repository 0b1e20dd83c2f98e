// RAII owners for libcurl objects (easy handle, header list) and the one-time global init.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>

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

}  // namespace a3s::power::client

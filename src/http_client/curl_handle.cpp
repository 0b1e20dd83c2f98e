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

}  // namespace a3s::power::client

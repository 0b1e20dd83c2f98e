// Transport-neutral HTTP request/response values exchanged between the HTTP server and the routes.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace a3s::power::server {

struct HttpRequest {
  std::string method;                         // "GET", "POST", …
  std::string path;                           // target without the query, still percent-encoded
  std::string query;                          // after '?', without it
  std::map<std::string, std::string> headers; // lower-case names
  std::string body;

  // Header value by lower-case name; "" when absent.
  const std::string& header(const std::string& lower_name) const {
    static const std::string kEmpty;
    auto it = headers.find(lower_name);
    return it == headers.end() ? kEmpty : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Retry-After, Allow, …)
};

}  // namespace a3s::power::server

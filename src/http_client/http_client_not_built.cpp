// The HTTP client of a build without libcurl (A3S_WITH_CURL=OFF): every way to reach a server throws
// Error(codes::kNotBuilt); nothing here opens a connection.
#include "a3s/power/error.h"
#include "http_client/http_client.h"
#include "http_client/http_client_built.h"

namespace a3s::power::client {

bool http_client_built() noexcept {
  return false;
}

struct HttpClient::Transport {};

HttpClient::HttpClient(ClientOptions opts) : opts_(std::move(opts)) {
  require_http_client("the HTTP client");
}
HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

// No HttpClient can be constructed, so none of these is reached; they throw all the same.
HttpResponse HttpClient::get(std::string_view) {
  require_http_client("the HTTP client");
  return {};
}
nlohmann::json HttpClient::get_json(std::string_view) {
  require_http_client("the HTTP client");
  return {};
}
StreamEnd HttpClient::post_stream(std::string_view, const nlohmann::json&, const std::function<bool(const SseEvent&)>&,
                                  const std::atomic<bool>*) {
  require_http_client("the HTTP client");
  return StreamEnd::Closed;
}

std::string HttpResponse::header(std::string_view) const {
  return "";  // no response exists in this build
}

}  // namespace a3s::power::client

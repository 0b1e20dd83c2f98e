#include "server/api_error.h"

#include <spdlog/spdlog.h>

namespace a3s::power::server {

const char* error_type_for_status(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

nlohmann::json error_body(const std::string& message, const std::string& type, const std::string& code,
                          const std::string& param) {
  nlohmann::json err = {{"message", message}, {"type", type}, {"code", code}, {"param", nullptr}};
  if (!param.empty()) err["param"] = param;
  return {{"error", err}};
}

HttpResponse error_response(int status, const std::string& code, const std::string& message,
                            const std::string& param) {
  HttpResponse r;
  r.status = status;
  r.body = error_body(message, error_type_for_status(status), code, param).dump();
  if (status == 429 || status == 503) r.headers.emplace_back("Retry-After", "1");
  return r;
}

HttpResponse error_response(const Error& e) {
  std::string param;
  if (auto* api = dynamic_cast<const ApiError*>(&e)) param = api->param();
  int status = http_status_for(e.kind());
  // Internal errors: their message may carry details we do not expose to clients, but
  // the operator sees them (an Error's message never holds request text): a model whose bytes fail
  // authentication while it serves must not go unnoticed.
  if (status == 500) spdlog::error("request failed: {}: {}", e.code(), e.what());
  std::string message = status == 500 ? "internal server error" : std::string(e.what());
  return error_response(status, e.code(), message, param);
}

}  // namespace a3s::power::server

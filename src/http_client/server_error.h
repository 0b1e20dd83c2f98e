// Errors of the client commands that talk to a server.
//
//   "server_error"        (exit 1) the server answered with an error — the OpenAI shape
//                         {"error": {"message", "type", "code", "param"}} as an HTTP response body or
//                         as an event of a stream — or with something the client cannot use (not
//                         JSON, a stream that ends before "data: [DONE]");
//   "server_unreachable"  (exit 2) no connection: refused, unknown host, timeout, TLS failure.
// Messages are one line; the server's message is shown as sent (the server never puts request
// text in errors), with control characters replaced and its length capped.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "a3s/power/error.h"

namespace a3s::power::client {

class ServerError : public Error {
 public:
  // http_status: the response status (200 for an error event inside a stream, 0 for none).
  ServerError(int http_status, std::string server_code, const std::string& message)
      : Error(codes::kServerError, message), http_status_(http_status), server_code_(std::move(server_code)) {}
  int http_status() const noexcept { return http_status_; }
  // The server's own code ("model_not_found", "invalid_api_key", …); "" when it sent none.
  const std::string& server_code() const noexcept { return server_code_; }

 private:
  int http_status_;
  std::string server_code_;
};

// The error described by `j` when it is {"error": {...}} (message, code; a bare string "error" is
// accepted too); nullopt otherwise.
std::optional<ServerError> server_error_from_json(const nlohmann::json& j, int http_status);

// The error for a non-2xx response: the OpenAI error body when there is one, else
// "the server answered HTTP <status>".
ServerError server_error_from_response(int http_status, std::string_view body);

// One printable line of at most `max_bytes` (control characters become spaces, invalid UTF-8 is
// kept byte for byte; a cut never splits a UTF-8 sequence).
std::string one_line(std::string_view text, std::size_t max_bytes = 512);

}  // namespace a3s::power::client

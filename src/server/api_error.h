// OpenAI-shaped error responses: {"error": {"message", "type", "code", "param"}}, for the errors of
// the API code (openai/api_error.h: ApiError, api_error_of) and every other Error.
//
// The HTTP status comes from the error code (src/base/error.cpp); the type from the status:
// 400/405/413/431 invalid_request_error, 401 authentication_error, 403 permission_error,
// 404 not_found_error, 429 rate_limit_error, 5xx server_error. Messages are templated by the
// code that raises them and never contain request text.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "a3s/power/error.h"
#include "openai/api_error.h"
#include "server/http_message.h"

namespace a3s::power::server {

// The OpenAI API without a transport (src/openai: request parsers, response shapes, ApiError,
// receipts) is the server's vocabulary: its names are used unqualified here.
using namespace openai;

const char* error_type_for_status(int status);

// {"error": {...}}; param null when empty.
nlohmann::json error_body(const std::string& message, const std::string& type, const std::string& code,
                          const std::string& param = {});

// The complete response for an error (status from the code; Retry-After for 429 and 503). It is
// also logged at error level when it is a 500, with its code and message (never request text).
HttpResponse error_response(const Error& e);
HttpResponse error_response(int status, const std::string& code, const std::string& message,
                            const std::string& param = {});

}  // namespace a3s::power::server

// The error of an API request: an Error that names the offending request field (OpenAI's "param").
// Every parser of this folder throws it; the server turns it into an OpenAI-shaped error response
// (server/api_error.h), the embedded runtime hands it to its caller as it is. Messages are templated
// by the code that raises them and never contain request text.
#pragma once

#include <string>

#include "a3s/power/error.h"

namespace a3s::power::openai {

class ApiError : public Error {
 public:
  ApiError(ErrorCode code, const std::string& message, std::string param = {})
      : Error(code, message), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

// `e` as an ApiError: its code and message, and the request field a chat::FieldError names.
ApiError api_error_of(const Error& e);

}  // namespace a3s::power::openai

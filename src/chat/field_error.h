// The error of a request field that chat or runtime code refuses: an Error that names the field at
// fault.
#pragma once

#include <string>
#include <utility>

#include "a3s/power/error.h"

namespace a3s::power::chat {

// An Error that names the request field at fault (the OpenAI error "param"): "messages", "tools",
// or under MessagePolicy::kApi the exact field ("messages[2].content[0].type", see messages.h), or a
// field the runtime checks against the model ("logit_bias").
// Its message never contains user text.
class FieldError : public Error {
 public:
  FieldError(ErrorCode code, std::string param, const std::string& message)
      : Error(code, message), param_(std::move(param)) {}
  const std::string& param() const noexcept { return param_; }

 private:
  std::string param_;
};

}  // namespace a3s::power::chat

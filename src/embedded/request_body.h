// The OpenAI-compatible body an embedded request stands for (include/a3s/power/embedded.h): the
// typed request written as the JSON the server's parsers read (openai/openai_request.h), so that an
// embedded request is validated, limited and turned into a runtime request by the same code as an
// HTTP one, and so that a receipt's request_sha256 covers bytes the embedder can show (its
// Result::request_json).
//
// Fields that are JSON text in the typed request (tool parameters, response_format,
// chat_template_kwargs) are parsed here, keeping their key order. Unset optional fields are left out
// (the parser's defaults apply). Errors: embedded::RequestError(codes::kInvalidJson) naming the field
// whose JSON text does not parse; every other check is the parser's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "a3s/power/embedded.h"

namespace a3s::power::embedded {

// `model` is the resolved model name (the request's may be "").
nlohmann::ordered_json chat_body(const ChatRequest& request, const std::string& model);
nlohmann::ordered_json completion_body(const CompletionRequest& request, const std::string& model);

}  // namespace a3s::power::embedded

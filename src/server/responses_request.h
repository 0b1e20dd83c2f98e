// Parsing and validation of OpenAI Responses API bodies (POST /v1/responses; OpenAI API reference,
// "Responses: create"), stateless.
//
// Accepted: model; input (a string, or an array of input messages {"type"?: "message", "role":
// "user" | "assistant" | "system" | "developer", "content": string | [{"type": "input_text" |
// "output_text", "text"}, ...]}); instructions (a string, the first system message); max_output_tokens
// (>= 1); temperature [0, 2]; top_p (0, 1]; stream; store (false only: responses are not stored);
// text ({"format": {"type": "text"}}); tools (empty) and tool_choice ("auto" | "none");
// parallel_tool_calls; truncation ("disabled"); metadata (an object of strings); user.
// Refused by name (unsupported_field): previous_response_id, store: true, text formats other than
// text, tools, reasoning, include, background, input items other than messages and content parts
// other than text; any other field is refused without being named. Errors are ApiError naming the
// field, never its value.
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/completion.h"

namespace a3s::power::server {

struct ParsedResponseRequest {
  runtime::CompletionRequest request;  // model, messages, sampling, max_tokens
  bool stream = false;
  double temperature = 1.0;  // as given (the response object repeats them)
  double top_p = 1.0;
  nlohmann::json tools = nlohmann::json::array();  // likewise: the Responses shapes as given
  nlohmann::json tool_choice = "auto";
  bool parallel_tool_calls = true;
  nlohmann::json text_format = {{"type", "text"}};
};

// raw_body: the body's text, when at hand: tools and schemas are read from it in the client's key
// order (else from `body`, sorted).
ParsedResponseRequest parse_response_request(const nlohmann::json& body, const std::string& raw_body = {});

}  // namespace a3s::power::server

// Parsing and validation of Anthropic Messages API bodies (POST /v1/messages and
// /v1/messages/count_tokens; Anthropic API reference, "Messages" and "Count tokens").
//
// Accepted: model, max_tokens (required, >= 1; not on count_tokens), messages (a non-empty array of
// {"role": "user" | "assistant", "content": string | content blocks}), system (a string or text
// blocks), stop_sequences (up to 16 non-empty strings), temperature [0, 1], top_p (0, 1], top_k
// (>= 0), stream (boolean), metadata ({"user_id"?: string}), tools ([{name, description?,
// input_schema}]) and tool_choice ({type: auto | any | tool | none, name?, disable_parallel_tool_use?}),
// which become the OpenAI fields of openai/tool_request.h (any = "required", tool = a named function).
// Content blocks: text (joined with "\n" as OpenAI content parts are), tool_use {id, name, input} in
// assistant messages (the assistant's tool calls), tool_result {tool_use_id, content?, is_error?} in
// user messages (each one a tool message). Blocks may carry cache_control, which is accepted and has
// no effect (the prompt cache is keyed explicitly: docs/prompt-cache.md).
// Refused by name (unsupported_field): thinking (other than {"type": "disabled"}), server tools, and
// other content blocks (image, document, thinking, …); any other field is refused without being
// named. Errors are ApiError naming the field, never its value. Defaults follow Anthropic:
// temperature 1, no top_p / top_k.
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/completion.h"

namespace a3s::power::server {

struct ParsedMessages {
  runtime::CompletionRequest request;  // model, messages, sampling, max_tokens, stop
  bool stream = false;
};

// `count_tokens`: the count_tokens body (no max_tokens, stream or sampling fields).
// raw_body: the body's text, when at hand: tools and tool inputs are read from it in the client's
// key order (else from `body`, sorted).
ParsedMessages parse_anthropic_messages(const nlohmann::json& body, bool count_tokens = false,
                                        const std::string& raw_body = {});

}  // namespace a3s::power::server

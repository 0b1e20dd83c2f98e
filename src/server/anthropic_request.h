// Parsing and validation of Anthropic Messages API bodies (POST /v1/messages and
// /v1/messages/count_tokens; Anthropic API reference, "Messages" and "Count tokens").
//
// Accepted: model, max_tokens (required, >= 1; not on count_tokens), messages (a non-empty array of
// {"role": "user" | "assistant", "content": string | [{"type": "text", "text": string}, ...]}),
// system (a string or text blocks), stop_sequences (up to 16 non-empty strings), temperature [0, 1],
// top_p (0, 1], top_k (>= 0), stream (boolean), metadata ({"user_id"?: string}). Text blocks may
// carry cache_control, which is accepted and has no effect (the prompt cache is keyed explicitly:
// docs/prompt-cache.md). Blocks are joined with "\n" as OpenAI content parts are.
// Refused by name (unsupported_field): tools, tool_choice, thinking (other than {"type": "disabled"}),
// and content blocks other than
// text (image, document, tool_use, tool_result, thinking, …); any other field is refused without
// being named. Errors are ApiError naming the field, never its value. Defaults follow Anthropic:
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
ParsedMessages parse_anthropic_messages(const nlohmann::json& body, bool count_tokens = false);

}  // namespace a3s::power::server

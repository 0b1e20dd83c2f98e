// Anthropic Messages API response shapes (Anthropic API reference, "Messages" and "Streaming
// Messages"): the message object, the streaming events (framed as "event: <type>\ndata: <json>\n\n")
// and the error shape {"type": "error", "error": {"type", "message"}}.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chat/tool_calls.h"
#include "server/http_message.h"

namespace a3s::power::server {

// How a reply ended, as Anthropic names it.
struct AnthropicStop {
  const char* reason = "end_turn";       // "end_turn" | "max_tokens" | "stop_sequence" | "tool_use"
  nlohmann::json sequence = nullptr;     // the stop sequence that ended it, or null
};

// {"id", "type": "message", "role": "assistant", "model", "content": [{"type": "text", "text"}],
// "stop_reason", "stop_sequence", "usage": {"input_tokens", "output_tokens"}}. Streams start with
// the same object with empty content and a null stop_reason.
// With tool calls, the text block (left out when empty) is followed by one
// {"type": "tool_use", "id", "name", "input"} block per call.
nlohmann::json anthropic_message(const std::string& id, const std::string& model, std::string_view text,
                                 const AnthropicStop* stop, int input_tokens, int output_tokens,
                                 std::span<const chat::ToolCall> calls = {});

// The stream's events around the text (the text block has index 0).
nlohmann::json anthropic_message_start(const nlohmann::json& message);
nlohmann::json anthropic_block_start();
nlohmann::json anthropic_text_delta(std::string_view text);
nlohmann::json anthropic_block_stop(int index = 0);
// A tool_use block of a stream: content_block_start (empty input), one input_json_delta carrying
// the whole input, content_block_stop.
std::string anthropic_tool_use_events(const chat::ToolCall& call, int index);
nlohmann::json anthropic_message_delta(const AnthropicStop& stop, int output_tokens);
nlohmann::json anthropic_message_stop();

// Anthropic's error type for an HTTP status: invalid_request_error (400, 405, 431), authentication_error
// (401), permission_error (403), not_found_error (404), request_too_large (413), rate_limit_error
// (429), overloaded_error (503), api_error (other 5xx).
const char* anthropic_error_type(int status);
// {"type": "error", "error": {"type", "message"}}.
nlohmann::json anthropic_error_body(int status, const std::string& message);
// An OpenAI-shaped error response (api_error.h) reshaped for the Anthropic routes: the same status,
// headers and message.
HttpResponse to_anthropic_error(HttpResponse openai_error);

}  // namespace a3s::power::server

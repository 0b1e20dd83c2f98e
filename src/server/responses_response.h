// OpenAI Responses API shapes (OpenAI API reference, "The response object" and "Streaming events"):
// the response object with one assistant message of output_text, its usage, and the stream's events
// (each with "type" and an increasing "sequence_number", framed by sse_typed_event).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chat/tool_calls.h"

namespace a3s::power::server {

// What every response object of one request repeats.
struct ResponseHead {
  std::string id;       // "resp_…"
  std::string item_id;  // the output message's id, "msg_…"
  int64_t created_at = 0;
  std::string model;
  std::optional<int> max_output_tokens;
  double temperature = 1.0;
  double top_p = 1.0;
  // Repeated from the request as given (Responses shapes).
  nlohmann::json tools = nlohmann::json::array();
  nlohmann::json tool_choice = "auto";
  bool parallel_tool_calls = true;
  nlohmann::json text_format = {{"type", "text"}};
};

struct ResponseUsage {
  int input_tokens = 0;
  int output_tokens = 0;
  int cached_tokens = 0;
};

// The output message: {"type": "message", "id", "status", "role": "assistant", "content":
// [{"type": "output_text", "text", "annotations": []}]}; without `text`, no content part yet.
nlohmann::json response_message(const ResponseHead& h, const char* status, const std::string* text);

// The response object. status "in_progress" (no output, no usage), "completed" or "incomplete"
// (incomplete_details.reason "max_output_tokens").
// A function_call output item: {"type": "function_call", "id": "fc_…", "call_id", "name", "arguments",
// "status"}.
nlohmann::json response_function_call(const chat::ToolCall& call, const char* status);

// output: the message (when `text` is given; `with_empty_message` false leaves an empty one out when
// there are calls) and a function_call item per call.
nlohmann::json response_object(const ResponseHead& h, const char* status, const std::string* text,
                               const ResponseUsage* usage, std::span<const chat::ToolCall> calls = {},
                               bool with_empty_message = true);

// One stream event: `fields` with "type" and "sequence_number" added.
nlohmann::json response_event(const char* type, int sequence_number, nlohmann::json fields = nlohmann::json::object());

}  // namespace a3s::power::server

#include "server/responses_response.h"

namespace a3s::power::server {

using nlohmann::json;

json response_message(const ResponseHead& h, const char* status, const std::string* text) {
  json content = json::array();
  if (text != nullptr) content.push_back({{"type", "output_text"}, {"text", *text}, {"annotations", json::array()}});
  return {{"type", "message"}, {"id", h.item_id}, {"status", status}, {"role", "assistant"}, {"content", content}};
}

json response_function_call(const chat::ToolCall& call, const char* status) {
  return {{"type", "function_call"}, {"id", "fc_" + call.id}, {"call_id", call.id}, {"name", call.name},
          {"arguments", call.arguments}, {"status", status}};
}

json response_object(const ResponseHead& h, const char* status, const std::string* text, const ResponseUsage* usage,
                     std::span<const chat::ToolCall> calls, bool with_empty_message) {
  const std::string_view st = status;
  json output = json::array();
  if (st != "in_progress" && (with_empty_message || calls.empty() || (text != nullptr && !text->empty()))) {
    output.push_back(response_message(h, st == "completed" ? "completed" : "incomplete", text));
  }
  for (const chat::ToolCall& c : calls) output.push_back(response_function_call(c, "completed"));
  json u = nullptr;
  if (usage != nullptr) {
    u = {{"input_tokens", usage->input_tokens},
         {"input_tokens_details", {{"cached_tokens", usage->cached_tokens}}},
         {"output_tokens", usage->output_tokens},
         {"output_tokens_details", {{"reasoning_tokens", 0}}},
         {"total_tokens", usage->input_tokens + usage->output_tokens}};
  }
  return {{"id", h.id},
          {"object", "response"},
          {"created_at", h.created_at},
          {"status", status},
          {"error", nullptr},
          {"incomplete_details", st == "incomplete" ? json{{"reason", "max_output_tokens"}} : json(nullptr)},
          {"instructions", nullptr},
          {"max_output_tokens", h.max_output_tokens ? json(*h.max_output_tokens) : json(nullptr)},
          {"model", h.model},
          {"output", std::move(output)},
          {"parallel_tool_calls", h.parallel_tool_calls},
          {"previous_response_id", nullptr},
          {"store", false},
          {"temperature", h.temperature},
          {"text", {{"format", h.text_format}}},
          {"tool_choice", h.tool_choice},
          {"tools", h.tools},
          {"top_p", h.top_p},
          {"truncation", "disabled"},
          {"usage", std::move(u)},
          {"metadata", json::object()}};
}

json response_event(const char* type, int sequence_number, json fields) {
  fields["type"] = type;
  fields["sequence_number"] = sequence_number;
  return fields;
}

}  // namespace a3s::power::server

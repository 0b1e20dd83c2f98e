#include "server/anthropic_response.h"

#include "privacy/wipe_text.h"
#include "server/openai_response.h"


namespace a3s::power::server {

using nlohmann::json;

json anthropic_message(const std::string& id, const std::string& model, std::string_view text,
                       const AnthropicStop* stop, int input_tokens, int output_tokens,
                       std::span<const chat::ToolCall> calls) {
  json content = json::array();
  if (stop != nullptr && (!text.empty() || calls.empty())) content.push_back({{"type", "text"}, {"text", text}});
  for (const chat::ToolCall& c : calls) {
    content.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::parse(c.arguments)}});
  }
  return {{"id", id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", model},
          {"content", std::move(content)},
          {"stop_reason", stop != nullptr ? json(stop->reason) : json(nullptr)},
          {"stop_sequence", stop != nullptr ? stop->sequence : json(nullptr)},
          {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}};
}

json anthropic_message_start(const json& message) { return {{"type", "message_start"}, {"message", message}}; }

json anthropic_block_start() {
  return {{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}};
}

json anthropic_text_delta(std::string_view text) {
  return {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", text}}}};
}

json anthropic_block_stop(int index) { return {{"type", "content_block_stop"}, {"index", index}}; }

std::string anthropic_tool_use_events(const chat::ToolCall& call, int index) {
  json start = {{"type", "content_block_start"},
                {"index", index},
                {"content_block", {{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", json::object()}}}};
  json delta = {{"type", "content_block_delta"},
                {"index", index},
                {"delta", {{"type", "input_json_delta"}, {"partial_json", call.arguments}}}};
  std::string events = sse_typed_event(start) + sse_typed_event(delta) + sse_typed_event(anthropic_block_stop(index));
  privacy::wipe_json(start);
  privacy::wipe_json(delta);
  return events;
}

json anthropic_message_delta(const AnthropicStop& stop, int output_tokens) {
  return {{"type", "message_delta"},
          {"delta", {{"stop_reason", stop.reason}, {"stop_sequence", stop.sequence}}},
          {"usage", {{"output_tokens", output_tokens}}}};
}

json anthropic_message_stop() { return {{"type", "message_stop"}}; }

const char* anthropic_error_type(int status) {
  switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

json anthropic_error_body(int status, const std::string& message) {
  return {{"type", "error"}, {"error", {{"type", anthropic_error_type(status)}, {"message", message}}}};
}

HttpResponse to_anthropic_error(HttpResponse r) {
  const json j = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  std::string message = "request failed";
  if (j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].contains("message") &&
      j["error"]["message"].is_string()) {
    message = j["error"]["message"].get<std::string>();
  }
  r.body = anthropic_error_body(r.status, message).dump();
  return r;
}

}  // namespace a3s::power::server

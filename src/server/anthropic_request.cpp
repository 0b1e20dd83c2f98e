#include "server/anthropic_request.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "chat/messages.h"
#include "server/api_error.h"
#include "server/request_fields.h"

namespace a3s::power::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxStopSequences = 16;

// A string, or an array of text blocks joined with "\n"; `where` names the field in errors.
std::string text_of(const json& content, const std::string& where) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) bad_field(where, "'" + where + "' must be a string or an array of content blocks");
  std::string text;
  for (size_t j = 0; j < content.size(); ++j) {
    const json& block = content[j];
    const std::string at = where + "[" + std::to_string(j) + "]";
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      bad_field(at + ".type", "'" + at + "' must be a content block with a type");
    }
    if (block["type"] != "text") {
      unsupported_field(at + ".type", "only text content blocks are available");
    }
    for (auto it = block.begin(); it != block.end(); ++it) {
      if (it.key() != "type" && it.key() != "text" && it.key() != "cache_control" && it.key() != "citations") {
        throw ApiError(codes::kUnsupportedField, "a text block has an unknown field", at);
      }
    }
    if (!block.contains("text") || !block["text"].is_string()) bad_field(at + ".text", "'" + at + ".text' must be a string");
    if (j > 0) text += "\n";
    text += block["text"].get<std::string>();
  }
  return text;
}

chat::Messages messages_of(const json& body) {
  chat::Messages out;
  if (is_given(body, "system")) {
    std::string system = text_of(body["system"], "system");
    if (!system.empty()) out.push_back(chat::text_message(chat::Role::kSystem, std::move(system)));
  }
  if (!is_given(body, "messages")) bad_field("messages", "'messages' is required");
  const json& ms = body["messages"];
  if (!ms.is_array() || ms.empty()) bad_field("messages", "'messages' must be a non-empty array");
  for (size_t i = 0; i < ms.size(); ++i) {
    const json& m = ms[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) bad_field(at, "'" + at + "' must be an object");
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (it.key() != "role" && it.key() != "content") {
        throw ApiError(codes::kUnsupportedField, "a message has an unknown field", at);
      }
    }
    if (!m.contains("role") || !m["role"].is_string() || (m["role"] != "user" && m["role"] != "assistant")) {
      bad_field(at + ".role", "'" + at + ".role' must be \"user\" or \"assistant\"");
    }
    if (!m.contains("content")) bad_field(at + ".content", "'" + at + ".content' is required");
    out.push_back(chat::text_message(m["role"] == "user" ? chat::Role::kUser : chat::Role::kAssistant,
                                     text_of(m["content"], at + ".content")));
  }
  return out;
}

}  // namespace

ParsedMessages parse_anthropic_messages(const nlohmann::json& body, bool count_tokens) {
  static const std::set<std::string> generation = {"model",       "max_tokens", "messages", "system", "stop_sequences",
                                                    "temperature", "top_p",      "top_k",    "stream", "metadata"};
  static const std::set<std::string> counting = {"model", "messages", "system"};
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& k = it.key();
    if ((count_tokens ? counting : generation).count(k)) continue;
    if (k == "tools" || k == "tool_choice") {
      if (it->is_null()) continue;
      unsupported_field(k, "tool use is not available");
    }
    if (k == "thinking") {
      // {"type": "disabled"} asks for what every answer here is.
      if (it->is_null() || (it->is_object() && it->value("type", json()) == "disabled")) continue;
      unsupported_field(k, "extended thinking is not available");
    }
    // Any other name is request content (it may be anything a client sent) and is never echoed.
    throw ApiError(codes::kUnsupportedField, "the request has an unknown field");
  }

  ParsedMessages out;
  runtime::CompletionRequest& r = out.request;
  if (!is_given(body, "model")) bad_field("model", "'model' is required");
  if (!body["model"].is_string() || body["model"].get_ref<const std::string&>().empty()) {
    bad_field("model", "'model' must be a non-empty string");
  }
  r.model = body["model"].get<std::string>();
  r.messages = messages_of(body);
  if (count_tokens) return out;

  if (!is_given(body, "max_tokens")) bad_field("max_tokens", "'max_tokens' is required");
  const int64_t max_tokens = integer_of(body, "max_tokens");
  if (max_tokens < 1) bad_field("max_tokens", "'max_tokens' must be at least 1");
  r.max_tokens = static_cast<int>(std::min<int64_t>(max_tokens, std::numeric_limits<int>::max()));

  SamplingParams& s = r.sampling;
  s = api_sampling_defaults();  // Anthropic's
  if (is_given(body, "temperature")) s.temperature = static_cast<float>(number_in(body, "temperature", 0, 1));
  if (is_given(body, "top_p")) s.top_p = static_cast<float>(number_in(body, "top_p", 0, 1, /*lo_open=*/true));
  if (is_given(body, "top_k")) {
    const int64_t k = integer_of(body, "top_k");
    if (k < 0 || k > std::numeric_limits<int>::max()) bad_field("top_k", "'top_k' must be >= 0");
    s.top_k = static_cast<int>(k);
  }
  if (is_given(body, "stop_sequences")) {
    const json& st = body["stop_sequences"];
    if (!st.is_array()) bad_field("stop_sequences", "'stop_sequences' must be an array of strings");
    if (st.size() > kMaxStopSequences) {
      bad_field("stop_sequences", "'stop_sequences' holds at most " + std::to_string(kMaxStopSequences) + " strings");
    }
    for (const json& v : st) {
      if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
        bad_field("stop_sequences", "'stop_sequences' must hold non-empty strings");
      }
      r.stop.push_back(v.get<std::string>());
    }
  }
  if (is_given(body, "stream")) {
    if (!body["stream"].is_boolean()) bad_field("stream", "'stream' must be a boolean");
    out.stream = body["stream"].get<bool>();
  }
  if (is_given(body, "metadata")) {
    const json& md = body["metadata"];
    if (!md.is_object()) bad_field("metadata", "'metadata' must be an object");
    for (auto it = md.begin(); it != md.end(); ++it) {
      if (it.key() != "user_id") throw ApiError(codes::kUnsupportedField, "'metadata' has an unknown field", "metadata");
      if (!it->is_null() && !it->is_string()) bad_field("metadata", "'metadata.user_id' must be a string");
    }
  }
  return out;
}

}  // namespace a3s::power::server

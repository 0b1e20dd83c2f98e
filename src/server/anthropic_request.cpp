#include "server/anthropic_request.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include "chat/messages.h"
#include "server/api_error.h"
#include "openai/request_fields.h"
#include "openai/tool_request.h"
#include "privacy/wipe_text.h"

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

using ojson = nlohmann::ordered_json;

// One message's content blocks: text (joined with "\n"), tool_use blocks (assistant: the calls) and
// tool_result blocks (user: each one a tool message, before the user's own text).
void blocks_of(const ojson& content, const std::string& where, bool user, chat::Messages& out) {
  if (content.is_string()) {
    out.push_back(chat::text_message(user ? chat::Role::kUser : chat::Role::kAssistant, content.get<std::string>()));
    return;
  }
  if (!content.is_array()) bad_field(where, "'" + where + "' must be a string or an array of content blocks");
  std::optional<std::string> text;
  std::vector<ojson> calls;
  for (size_t j = 0; j < content.size(); ++j) {
    const ojson& block = content[j];
    const std::string at = where + "[" + std::to_string(j) + "]";
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      bad_field(at + ".type", "'" + at + "' must be a content block with a type");
    }
    const std::string& type = block["type"].get_ref<const std::string&>();
    auto only = [&](std::initializer_list<const char*> keys) {
      for (auto it = block.begin(); it != block.end(); ++it) {
        bool known = it.key() == "type" || it.key() == "cache_control";
        for (const char* k : keys) known = known || it.key() == k;
        if (!known) throw ApiError(codes::kUnsupportedField, "a content block has an unknown field", at);
      }
    };
    if (type == "text") {
      only({"text", "citations"});
      if (!block.contains("text") || !block["text"].is_string()) bad_field(at + ".text", "'" + at + ".text' must be a string");
      text = text ? *text + "\n" + block["text"].get<std::string>() : block["text"].get<std::string>();
    } else if (type == "tool_use" && !user) {
      only({"id", "name", "input"});
      for (const char* k : {"id", "name"}) {
        if (!block.contains(k) || !block[k].is_string()) bad_field(at + "." + k, "'" + at + "." + k + "' must be a string");
      }
      if (!block.contains("input") || !block["input"].is_object()) bad_field(at + ".input", "'" + at + ".input' must be an object");
      calls.push_back({{"id", block["id"]}, {"type", "function"},
                       {"function", {{"name", block["name"]}, {"arguments", block["input"]}}}});
    } else if (type == "tool_result" && user) {
      only({"tool_use_id", "content", "is_error"});
      if (!block.contains("tool_use_id") || !block["tool_use_id"].is_string()) {
        bad_field(at + ".tool_use_id", "'" + at + ".tool_use_id' must be a string");
      }
      if (block.contains("is_error") && !block["is_error"].is_boolean()) {
        bad_field(at + ".is_error", "'" + at + ".is_error' must be a boolean");
      }
      chat::Message result = chat::text_message(
          chat::Role::kTool, block.contains("content") ? text_of(json(block["content"]), at + ".content") : std::string());
      result.tool_call_id = block["tool_use_id"].get<std::string>();
      out.push_back(std::move(result));
    } else {
      unsupported_field(at + ".type", user ? "only text and tool_result content blocks are available here"
                                           : "only text and tool_use content blocks are available here");
    }
  }
  if (!calls.empty()) {
    chat::Message m;
    m.role = chat::Role::kAssistant;
    m.content = text;
    m.tool_calls = std::move(calls);
    out.push_back(std::move(m));
  } else if (text || content.empty()) {
    out.push_back(chat::text_message(user ? chat::Role::kUser : chat::Role::kAssistant, text.value_or("")));
  }
}

// Anthropic's tools ({name, description?, input_schema}) and tool_choice ({type: auto | any | tool |
// none, name?, disable_parallel_tool_use?}) in the OpenAI shape openai/tool_request.h reads.
ToolRequest tools_of(const ojson& fields) {
  ojson openai = ojson::object();
  if (fields.contains("tools") && !fields["tools"].is_null()) {
    const ojson& tools = fields["tools"];
    if (!tools.is_array()) bad_field("tools", "'tools' must be an array");
    ojson converted = ojson::array();
    for (size_t i = 0; i < tools.size(); ++i) {
      const ojson& t = tools[i];
      const std::string at = "tools[" + std::to_string(i) + "]";
      if (!t.is_object()) bad_field(at, "'" + at + "' must be an object");
      if (t.contains("type") && !t["type"].is_null() && t["type"] != "custom") {
        unsupported_field(at + ".type", "only client tools (name, description, input_schema) are available");
      }
      for (auto it = t.begin(); it != t.end(); ++it) {
        const std::string& k = it.key();
        if (k != "type" && k != "name" && k != "description" && k != "input_schema" && k != "cache_control") {
          throw ApiError(codes::kUnsupportedField, "a tool has an unknown field", at);
        }
      }
      if (!t.contains("input_schema") || !t["input_schema"].is_object()) {
        bad_field(at + ".input_schema", "'" + at + ".input_schema' must be a JSON Schema object");
      }
      ojson fn = {{"name", t.value("name", ojson())}};
      if (t.contains("description")) fn["description"] = t["description"];
      fn["parameters"] = t["input_schema"];
      converted.push_back({{"type", "function"}, {"function", std::move(fn)}});
    }
    openai["tools"] = std::move(converted);
  }
  if (fields.contains("tool_choice") && !fields["tool_choice"].is_null()) {
    const ojson& c = fields["tool_choice"];
    if (!c.is_object() || !c.contains("type") || !c["type"].is_string()) {
      bad_field("tool_choice", "'tool_choice' must be an object with a type");
    }
    const std::string& type = c["type"].get_ref<const std::string&>();
    if (type == "auto") {
      openai["tool_choice"] = "auto";
    } else if (type == "any") {
      openai["tool_choice"] = "required";
    } else if (type == "none") {
      openai["tool_choice"] = "none";
    } else if (type == "tool") {
      if (!c.contains("name") || !c["name"].is_string()) bad_field("tool_choice", "'tool_choice.name' must be a string");
      openai["tool_choice"] = {{"type", "function"}, {"function", {{"name", c["name"]}}}};
    } else {
      bad_field("tool_choice", "'tool_choice.type' must be auto, any, tool or none");
    }
    if (c.contains("disable_parallel_tool_use") && !c["disable_parallel_tool_use"].is_null()) {
      if (!c["disable_parallel_tool_use"].is_boolean()) {
        bad_field("tool_choice", "'tool_choice.disable_parallel_tool_use' must be a boolean");
      }
      openai["parallel_tool_calls"] = !c["disable_parallel_tool_use"].get<bool>();
    }
  }
  ToolRequest out = parse_tool_request(openai);
  privacy::wipe_json(openai);
  return out;
}

chat::Messages messages_of(const json& body, const ojson& ordered_messages) {
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
    // Tool inputs keep the client's key order (the template prints them).
    blocks_of(ordered_messages[i]["content"], at + ".content", m["role"] == "user", out);
  }
  return out;
}

}  // namespace

ParsedMessages parse_anthropic_messages(const nlohmann::json& body, bool count_tokens, const std::string& raw_body) {
  static const std::set<std::string> generation = {"model",  "max_tokens", "messages", "system", "stop_sequences",
                                                    "temperature", "top_p", "top_k", "stream", "metadata",
                                                    "tools", "tool_choice"};
  static const std::set<std::string> counting = {"model", "messages", "system", "tools", "tool_choice"};
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& k = it.key();
    if ((count_tokens ? counting : generation).count(k)) continue;
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
  ojson fields = ordered_fields(body, raw_body, {"messages", "tools", "tool_choice"});
  struct WipeFields {
    ojson& f;
    ~WipeFields() { privacy::wipe_json(f); }
  } wipe_fields{fields};
  if (!fields.contains("messages") || !fields["messages"].is_array()) fields["messages"] = ojson(body.value("messages", json()));
  r.messages = messages_of(body, fields["messages"]);
  apply_tool_request(tools_of(fields), r);
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

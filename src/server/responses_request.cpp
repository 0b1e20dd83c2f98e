#include "server/responses_request.h"

#include <limits>
#include <set>
#include <string>

#include "chat/messages.h"
#include "server/api_error.h"
#include "openai/request_fields.h"
#include "openai/structured_output.h"
#include "openai/tool_request.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {
namespace {

using nlohmann::json;

// The text of one input message's content: a string, or input_text / output_text parts joined
// with "\n" (as chat content parts are).
std::string content_text(const json& content, const std::string& at) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) bad_field(at, "'" + at + "' must be a string or an array of content parts");
  std::string text;
  for (size_t j = 0; j < content.size(); ++j) {
    const json& part = content[j];
    const std::string where = at + "[" + std::to_string(j) + "]";
    if (!part.is_object() || !part.contains("type") || !part["type"].is_string()) {
      bad_field(where + ".type", "'" + where + "' must be a content part with a type");
    }
    if (part["type"] != "input_text" && part["type"] != "output_text") {
      unsupported_field(where + ".type", "only text content parts are available");
    }
    for (auto it = part.begin(); it != part.end(); ++it) {
      if (it.key() != "type" && it.key() != "text" && it.key() != "annotations" && it.key() != "logprobs") {
        throw ApiError(codes::kUnsupportedField, "a content part has an unknown field", where);
      }
    }
    if (!part.contains("text") || !part["text"].is_string()) bad_field(where + ".text", "'" + where + ".text' must be a string");
    if (j > 0) text += "\n";
    text += part["text"].get<std::string>();
  }
  return text;
}

chat::Role role_of(const json& item, const std::string& at) {
  if (!item.contains("role") || !item["role"].is_string()) bad_field(at + ".role", "'" + at + ".role' is required");
  const std::string& r = item["role"].get_ref<const std::string&>();
  if (r == "user") return chat::Role::kUser;
  if (r == "assistant") return chat::Role::kAssistant;
  if (r == "system" || r == "developer") return chat::Role::kSystem;
  bad_field(at + ".role", "'" + at + ".role' must be user, assistant, system or developer");
}

using ojson = nlohmann::ordered_json;

// A function_call input item (a call the model made earlier) as an assistant tool call.
ojson call_of(const json& item, const std::string& at) {
  for (auto it = item.begin(); it != item.end(); ++it) {
    const std::string& k = it.key();
    if (k != "type" && k != "call_id" && k != "name" && k != "arguments" && k != "id" && k != "status") {
      throw ApiError(codes::kUnsupportedField, "an input item has an unknown field", at);
    }
  }
  for (const char* k : {"call_id", "name", "arguments"}) {
    if (!item.contains(k) || !item[k].is_string()) bad_field(at + "." + k, "'" + at + "." + k + "' must be a string");
  }
  return {{"id", item["call_id"]}, {"type", "function"},
          {"function", {{"name", item["name"]}, {"arguments", item["arguments"]}}}};
}

chat::Messages input_of(const json& body) {
  chat::Messages out;
  if (is_given(body, "instructions")) {
    if (!body["instructions"].is_string()) bad_field("instructions", "'instructions' must be a string");
    if (!body["instructions"].get_ref<const std::string&>().empty()) {
      out.push_back(chat::text_message(chat::Role::kSystem, body["instructions"].get<std::string>()));
    }
  }
  if (!is_given(body, "input")) bad_field("input", "'input' is required");
  const json& in = body["input"];
  if (in.is_string()) {
    out.push_back(chat::text_message(chat::Role::kUser, in.get<std::string>()));
    return out;
  }
  if (!in.is_array() || in.empty()) bad_field("input", "'input' must be a string or a non-empty array of items");
  for (size_t i = 0; i < in.size(); ++i) {
    const json& item = in[i];
    const std::string at = "input[" + std::to_string(i) + "]";
    if (!item.is_object()) bad_field(at, "'" + at + "' must be an object");
    if (item.contains("type") && item["type"] == "function_call") {
      // Consecutive calls belong to one assistant turn.
      if (out.empty() || out.back().role != chat::Role::kAssistant || !out.back().tool_calls) {
        chat::Message m;
        m.role = chat::Role::kAssistant;
        m.tool_calls.emplace();
        out.push_back(std::move(m));
      }
      out.back().tool_calls->push_back(call_of(item, at));
      continue;
    }
    if (item.contains("type") && item["type"] == "function_call_output") {
      for (auto it = item.begin(); it != item.end(); ++it) {
        const std::string& k = it.key();
        if (k != "type" && k != "call_id" && k != "output" && k != "id" && k != "status") {
          throw ApiError(codes::kUnsupportedField, "an input item has an unknown field", at);
        }
      }
      if (!item.contains("call_id") || !item["call_id"].is_string()) {
        bad_field(at + ".call_id", "'" + at + ".call_id' must be a string");
      }
      if (!item.contains("output")) bad_field(at + ".output", "'" + at + ".output' is required");
      chat::Message result = chat::text_message(chat::Role::kTool, content_text(item["output"], at + ".output"));
      result.tool_call_id = item["call_id"].get<std::string>();
      out.push_back(std::move(result));
      continue;
    }
    if (item.contains("type") && item["type"] != "message") {
      if (!item["type"].is_string()) bad_field(at + ".type", "'" + at + ".type' must be a string");
      unsupported_field(at + ".type", "only message, function_call and function_call_output input items are available");
    }
    for (auto it = item.begin(); it != item.end(); ++it) {
      if (it.key() != "type" && it.key() != "role" && it.key() != "content" && it.key() != "id" && it.key() != "status") {
        throw ApiError(codes::kUnsupportedField, "an input item has an unknown field", at);
      }
    }
    const chat::Role role = role_of(item, at);
    if (!item.contains("content")) bad_field(at + ".content", "'" + at + ".content' is required");
    out.push_back(chat::text_message(role, content_text(item["content"], at + ".content")));
  }
  return out;
}

// The Responses API's tools ({type: "function", name, description?, parameters?, strict?}) and
// tool_choice ({type: "function", name}) in the chat shapes openai/tool_request.h reads.
ToolRequest tools_of(const ojson& fields) {
  ojson chat_fields = ojson::object();
  if (fields.contains("tools") && !fields["tools"].is_null()) {
    const ojson& tools = fields["tools"];
    if (!tools.is_array()) bad_field("tools", "'tools' must be an array");
    ojson converted = ojson::array();
    for (size_t i = 0; i < tools.size(); ++i) {
      const ojson& t = tools[i];
      const std::string at = "tools[" + std::to_string(i) + "]";
      if (!t.is_object()) bad_field(at, "'" + at + "' must be an object");
      if (!t.contains("type") || t["type"] != "function") {
        unsupported_field(at + ".type", "only function tools are available");
      }
      ojson fn = ojson::object();
      for (auto it = t.begin(); it != t.end(); ++it) {
        if (it.key() == "type") continue;
        if (it.key() != "name" && it.key() != "description" && it.key() != "parameters" && it.key() != "strict") {
          throw ApiError(codes::kUnsupportedField, "a tool has an unknown field", at);
        }
        fn[it.key()] = it.value();
      }
      converted.push_back({{"type", "function"}, {"function", std::move(fn)}});
    }
    if (!converted.empty()) chat_fields["tools"] = std::move(converted);
  }
  if (fields.contains("tool_choice") && !fields["tool_choice"].is_null()) {
    const ojson& c = fields["tool_choice"];
    if (c.is_object() && c.contains("type") && c["type"] == "function" && c.contains("name")) {
      chat_fields["tool_choice"] = {{"type", "function"}, {"function", {{"name", c["name"]}}}};
    } else {
      chat_fields["tool_choice"] = c;
    }
  }
  if (fields.contains("parallel_tool_calls")) chat_fields["parallel_tool_calls"] = fields["parallel_tool_calls"];
  ToolRequest out = parse_tool_request(chat_fields);
  privacy::wipe_json(chat_fields);
  return out;
}

// text.format: {type: "text"} | {type: "json_object"} | {type: "json_schema", name?, description?,
// schema, strict?} → the grammar of the reply (openai/structured_output.h), or nullptr.
std::shared_ptr<const grammar::Grammar> text_format_grammar(const ojson& f) {
  if (!f.is_object() || !f.contains("type") || !f["type"].is_string()) {
    bad_field("text.format", "'text.format' must be an object with a type");
  }
  const std::string& type = f["type"].get_ref<const std::string&>();
  for (auto it = f.begin(); it != f.end(); ++it) {
    const std::string& k = it.key();
    const bool known = k == "type" || (type == "json_schema" && (k == "name" || k == "description" || k == "schema" ||
                                                                 k == "strict"));
    if (!known) throw ApiError(codes::kUnsupportedField, "'text.format' has an unknown field", "text.format");
  }
  if (type == "text") return nullptr;
  if (type == "json_object") return any_json_object_grammar("text.format");
  if (type != "json_schema") bad_field("text.format", "'text.format.type' must be text, json_object or json_schema");
  if (f.contains("strict") && !f["strict"].is_null() && !f["strict"].is_boolean()) {
    bad_field("text.format", "'text.format.strict' must be a boolean");
  }
  if (!f.contains("schema") || !f["schema"].is_object()) bad_field("text.format", "'text.format.schema' must be an object");
  return json_schema_grammar(f["schema"], "text.format");
}

}  // namespace

ParsedResponseRequest parse_response_request(const nlohmann::json& body, const std::string& raw_body) {
  static const std::set<std::string> accepted = {"model",  "input",       "instructions",        "max_output_tokens",
                                                 "temperature", "top_p",  "stream",              "store",
                                                 "text",   "tools",       "tool_choice",         "parallel_tool_calls",
                                                 "truncation", "metadata", "user"};
  static const std::set<std::string> refused = {"previous_response_id", "reasoning", "include", "background",
                                                "prompt", "service_tier", "top_logprobs", "max_tool_calls",
                                                "conversation"};
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& k = it.key();
    if (accepted.count(k)) continue;
    if (refused.count(k)) {
      if (it->is_null()) continue;
      unsupported_field(k, k == "previous_response_id" || k == "conversation" ? "responses are not stored"
                                                                               : "it is not available");
    }
    // Any other name is request content (it may be anything a client sent) and is never echoed.
    throw ApiError(codes::kUnsupportedField, "the request has an unknown field");
  }
  ParsedResponseRequest out;
  runtime::CompletionRequest& r = out.request;
  if (!is_given(body, "model")) bad_field("model", "'model' is required");
  if (!body["model"].is_string() || body["model"].get_ref<const std::string&>().empty()) {
    bad_field("model", "'model' must be a non-empty string");
  }
  r.model = body["model"].get<std::string>();
  r.messages = input_of(body);

  r.sampling = api_sampling_defaults();
  if (is_given(body, "temperature")) out.temperature = number_in(body, "temperature", 0, 2);
  if (is_given(body, "top_p")) out.top_p = number_in(body, "top_p", 0, 1, /*lo_open=*/true);
  r.sampling.temperature = static_cast<float>(out.temperature);
  r.sampling.top_p = static_cast<float>(out.top_p);
  if (is_given(body, "max_output_tokens")) {
    const int64_t m = integer_of(body, "max_output_tokens");
    if (m < 1) bad_field("max_output_tokens", "'max_output_tokens' must be at least 1");
    r.max_tokens = static_cast<int>(std::min<int64_t>(m, std::numeric_limits<int>::max()));
  }
  if (is_given(body, "stream")) out.stream = bool_of(body, "stream");
  if (is_given(body, "store") && bool_of(body, "store")) unsupported_field("store", "responses are not stored");
  ojson fields = ordered_fields(body, raw_body, {"tools", "tool_choice", "parallel_tool_calls", "text"});
  struct WipeFields {
    ojson& f;
    ~WipeFields() { privacy::wipe_json(f); }
  } wipe_fields{fields};
  if (fields.contains("text") && !fields["text"].is_null()) {
    const ojson& t = fields["text"];
    if (!t.is_object()) bad_field("text", "'text' must be an object");
    for (auto it = t.begin(); it != t.end(); ++it) {
      if (it.key() == "verbosity" && it->is_null()) continue;
      if (it.key() != "format") throw ApiError(codes::kUnsupportedField, "'text' has an unknown field", "text");
      if (it->is_null()) continue;
      r.grammar = text_format_grammar(*it);
      out.text_format = json(*it);
    }
  }
  const ToolRequest tools = tools_of(fields);
  apply_tool_request(tools, r);
  if (r.grammar && tools.active()) {
    bad_field("text.format", "a structured 'text.format' cannot be combined with 'tools' unless 'tool_choice' is \"none\"");
  }
  if (fields.contains("tools") && fields["tools"].is_array()) out.tools = json(fields["tools"]);
  if (fields.contains("tool_choice") && !fields["tool_choice"].is_null()) out.tool_choice = json(fields["tool_choice"]);
  out.parallel_tool_calls = tools.parallel;
  if (is_given(body, "truncation")) {
    const json& t = body["truncation"];
    if (!t.is_string() || t != "disabled") unsupported_field("truncation", "only \"disabled\" is available");
  }
  if (is_given(body, "metadata")) {
    const json& md = body["metadata"];
    if (!md.is_object()) bad_field("metadata", "'metadata' must be an object");
    for (auto it = md.begin(); it != md.end(); ++it) {
      if (!it->is_string()) bad_field("metadata", "'metadata' values must be strings");
    }
  }
  if (is_given(body, "user") && !body["user"].is_string()) bad_field("user", "'user' must be a string");
  return out;
}

}  // namespace a3s::power::server

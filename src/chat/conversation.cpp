#include "chat/conversation.h"

#include <string>

#include "chat/chat_template.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using Json = nlohmann::ordered_json;

constexpr ErrorCode kInvalid = codes::kInvalidRequest;
constexpr ErrorCode kUnsupported = codes::kUnsupportedField;

[[noreturn]] void invalid(const std::string& message) {
  throw FieldError(kInvalid, "messages", message);
}

std::string at(std::size_t i) {
  return "messages[" + std::to_string(i) + "]";
}

bool known_role(const std::string& role) {
  return role == "system" || role == "user" || role == "assistant" || role == "tool";
}

// Concatenates text parts; throws for anything else.
std::string join_parts(const Json& parts, const std::string& where) {
  std::string text;
  for (std::size_t j = 0; j < parts.size(); ++j) {
    const Json& part = parts[j];
    const std::string here = where + "[" + std::to_string(j) + "]";
    if (!part.is_object()) invalid(here + " must be an object");
    auto type = part.find("type");
    if (type == part.end() || !type->is_string()) invalid(here + ".type must be a string");
    if (*type != "text") {
      throw FieldError(kUnsupported, "messages",
                       here + ": only content parts of type \"text\" are supported");
    }
    auto t = part.find("text");
    if (t == part.end() || !t->is_string()) invalid(here + ".text must be a string");
    text += t->get_ref<const std::string&>();
  }
  return text;
}

void validate_tool_calls(const Json& calls, const std::string& where) {
  if (!calls.is_array()) invalid(where + " must be an array");
  for (std::size_t j = 0; j < calls.size(); ++j) {
    const Json& call = calls[j];
    const std::string here = where + "[" + std::to_string(j) + "]";
    if (!call.is_object()) invalid(here + " must be an object");
    for (const char* key : {"id", "type"}) {
      auto it = call.find(key);
      if (it != call.end() && !it->is_string()) invalid(here + "." + key + " must be a string");
    }
    auto fn = call.find("function");
    if (fn == call.end() || !fn->is_object()) invalid(here + ".function must be an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string()) invalid(here + ".function.name must be a string");
    auto args = fn->find("arguments");
    if (args == fn->end() || !(args->is_string() || args->is_object())) {
      invalid(here + ".function.arguments must be a string or an object");
    }
  }
}

}  // namespace

Json normalize_messages(const Json& messages) {
  if (!messages.is_array()) invalid("messages must be an array");
  if (messages.empty()) invalid("messages must contain at least one message");
  Json out = Json::array();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string here = at(i);
    if (!m.is_object()) invalid(here + " must be an object");
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) invalid(here + ".role must be a string");
    if (!known_role(role->get_ref<const std::string&>())) {
      invalid(here + ".role must be one of system, user, assistant, tool");
    }
    Json msg = m;
    auto calls = msg.find("tool_calls");
    if (calls != msg.end() && calls->is_null()) {
      msg.erase("tool_calls");
      calls = msg.end();
    }
    const bool has_calls = calls != msg.end();
    if (has_calls) {
      if (*role != "assistant") invalid(here + ".tool_calls is only allowed on assistant messages");
      validate_tool_calls(*calls, here + ".tool_calls");
    }
    auto content = msg.find("content");
    if (content == msg.end() || content->is_null()) {
      if (!has_calls) invalid(here + ".content must be a string or an array of text parts");
      msg["content"] = nullptr;
    } else if (content->is_array()) {
      *content = join_parts(*content, here + ".content");
    } else if (!content->is_string()) {
      invalid(here + ".content must be a string or an array of text parts");
    }
    for (const char* key : {"tool_call_id", "name"}) {
      auto it = msg.find(key);
      if (it != msg.end() && !it->is_string()) invalid(here + "." + key + " must be a string");
    }
    out.push_back(std::move(msg));
  }
  return out;
}

void validate_tools(const Json& tools) {
  if (tools.is_null()) return;
  auto bad = [](const std::string& message) { throw FieldError(kInvalid, "tools", message); };
  if (!tools.is_array()) bad("tools must be an array");
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const Json& t = tools[i];
    const std::string here = "tools[" + std::to_string(i) + "]";
    if (!t.is_object()) bad(here + " must be an object");
    auto type = t.find("type");
    if (type != t.end() && !type->is_string()) bad(here + ".type must be a string");
    const bool is_function = (type != t.end() && *type == "function") || t.contains("function");
    if (!is_function) continue;
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object()) bad(here + ".function must be an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string()) bad(here + ".function.name must be a string");
  }
}

void adapt_tool_call_arguments(Json& messages, ArgumentsStyle style) {
  if (style == ArgumentsStyle::kAsGiven) return;
  for (auto& m : messages) {
    auto calls = m.find("tool_calls");
    if (calls == m.end()) continue;
    for (auto& call : *calls) {
      Json& args = call["function"]["arguments"];
      if (style == ArgumentsStyle::kObject && args.is_string()) {
        Json parsed = Json::parse(args.get_ref<const std::string&>(), nullptr, /*allow_exceptions=*/false);
        if (parsed.is_object()) args = std::move(parsed);
      } else if (style == ArgumentsStyle::kString && !args.is_string()) {
        args = py::dumps(args);
      }
    }
  }
}

}  // namespace a3s::power::chat

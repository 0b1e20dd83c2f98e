#include "chat/messages.h"

#include <utility>

namespace a3s::power::chat {
namespace {

constexpr ErrorCode kInvalid = codes::kInvalidRequest;
constexpr ErrorCode kUnsupported = codes::kUnsupportedField;

// Reports errors in the words and with the param of the policy: under kApi the param is the field
// and the message quotes it; under kTemplate the param is "messages".
class Fail {
 public:
  explicit Fail(MessagePolicy policy) : api_(policy == MessagePolicy::kApi) {}

  bool api() const { return api_; }

  // A field of the wrong shape: "'<field>' <what>" (kApi) or "<field> <what>" (kTemplate).
  [[noreturn]] void invalid(const std::string& field, const std::string& what) const {
    throw FieldError(kInvalid, param(field), api_ ? "'" + field + "' " + what : field + " " + what);
  }
  // A field the API refuses: "'<field>' is not supported: <why>".
  [[noreturn]] void not_supported(const std::string& field, const std::string& why) const {
    throw FieldError(kUnsupported, param(field), "'" + field + "' is not supported: " + why);
  }
  // A key the API does not know; names only the object that holds it.
  [[noreturn]] void unknown_field(const std::string& where) const {
    throw FieldError(kUnsupported, param(where), "'" + where + "' has an unknown field");
  }
  // A content part that is not text.
  [[noreturn]] void not_text(const std::string& part) const {
    if (api_) not_supported(part + ".type", "only text content parts are available");
    throw FieldError(kUnsupported, "messages", part + ": only content parts of type \"text\" are supported");
  }

 private:
  std::string param(const std::string& field) const { return api_ ? field : "messages"; }
  bool api_;
};

template <class Json>
const Json* find(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

template <class Json>
bool given(const Json* v) {
  return v != nullptr && !v->is_null();
}

// Content: a string, or text parts joined with "\n".
template <class Json>
std::string content_text(const Json& content, const std::string& where, const Fail& fail) {
  const char* shape = fail.api() ? "must be a string or an array of content parts"
                                 : "must be a string or an array of text parts";
  if (content.is_string()) return content.template get<std::string>();
  if (!content.is_array()) fail.invalid(where, shape);
  std::string text;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const Json& part = content[i];
    const std::string here = where + "[" + std::to_string(i) + "]";
    if (!part.is_object()) fail.invalid(here, "must be an object");
    const Json* type = find(part, "type");
    if (type == nullptr || !type->is_string()) {
      fail.invalid(here + ".type", fail.api() ? "is required" : "must be a string");
    }
    if (type->template get_ref<const std::string&>() != "text") fail.not_text(here);
    if (fail.api()) {
      for (auto it = part.begin(); it != part.end(); ++it) {
        if (it.key() != "type" && it.key() != "text") fail.unknown_field(here);
      }
    }
    const Json* t = find(part, "text");
    if (t == nullptr || !t->is_string()) fail.invalid(here + ".text", "must be a string");
    if (i > 0) text += "\n";
    text += t->template get_ref<const std::string&>();
  }
  return text;
}

template <class Json>
std::vector<nlohmann::ordered_json> tool_calls_of(const Json& calls, const std::string& where, const Fail& fail) {
  if (!calls.is_array()) fail.invalid(where, "must be an array");
  std::vector<nlohmann::ordered_json> out;
  out.reserve(calls.size());
  for (std::size_t j = 0; j < calls.size(); ++j) {
    const Json& call = calls[j];
    const std::string here = where + "[" + std::to_string(j) + "]";
    if (!call.is_object()) fail.invalid(here, "must be an object");
    for (const char* key : {"id", "type"}) {
      const Json* v = find(call, key);
      if (v != nullptr && !v->is_string()) fail.invalid(here + "." + key, "must be a string");
    }
    const Json* fn = find(call, "function");
    if (fn == nullptr || !fn->is_object()) fail.invalid(here + ".function", "must be an object");
    const Json* name = find(*fn, "name");
    if (name == nullptr || !name->is_string()) fail.invalid(here + ".function.name", "must be a string");
    const Json* args = find(*fn, "arguments");
    if (args == nullptr || !(args->is_string() || args->is_object())) {
      fail.invalid(here + ".function.arguments", "must be a string or an object");
    }
    out.emplace_back(call);
  }
  return out;
}

std::optional<Role> role_of(const std::string& name, const Fail& fail) {
  if (name == "system") return Role::kSystem;
  if (name == "user") return Role::kUser;
  if (name == "assistant") return Role::kAssistant;
  if (name == "tool") return Role::kTool;
  if (name == "developer" && fail.api()) return Role::kSystem;  // OpenAI's newer name for system
  return std::nullopt;
}

// The API's allow-list of message keys: role, content, name, and the tool fields (tool_calls on
// assistant messages, tool_call_id on tool messages); everything else is refused.
template <class Json>
void refuse_api_fields(const Json& m, const std::string& w, Role role, const Fail& fail) {
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string& k = it.key();
    if (k == "role" || k == "content" || k == "name") continue;
    if (it->is_null()) continue;
    if (k == "tool_calls" && role == Role::kAssistant) continue;
    if (k == "tool_call_id" && role == Role::kTool) continue;
    if (k == "tool_calls") fail.invalid(w + ".tool_calls", "is only allowed on assistant messages");
    if (k == "tool_call_id") fail.invalid(w + ".tool_call_id", "is only allowed on tool messages");
    if (k == "function_call") fail.not_supported(w + "." + k, "the legacy function_call is not available; use tool_calls");
    if (k == "audio" || k == "refusal") fail.not_supported(w + "." + k, "only text messages are available");
    fail.unknown_field(w);
  }
}

template <class Json>
Message parse_api_message(const Json& m, const std::string& w, Role role, const Fail& fail) {
  refuse_api_fields(m, w, role, fail);
  Message msg;
  msg.role = role;
  const Json* name = find(m, "name");
  if (given(name)) {
    if (!name->is_string()) fail.invalid(w + ".name", "must be a string");
    msg.name = name->template get<std::string>();
  }
  const Json* calls = find(m, "tool_calls");
  if (given(calls)) msg.tool_calls = tool_calls_of(*calls, w + ".tool_calls", fail);
  const Json* id = find(m, "tool_call_id");
  if (given(id)) {
    if (!id->is_string()) fail.invalid(w + ".tool_call_id", "must be a string");
    msg.tool_call_id = id->template get<std::string>();
  }
  const Json* content = find(m, "content");
  if (!given(content)) {
    // An assistant message that only calls tools has no content.
    if (!msg.tool_calls || msg.tool_calls->empty()) fail.invalid(w + ".content", "is required");
  } else {
    msg.content = content_text(*content, w + ".content", fail);
  }
  return msg;
}

template <class Json>
Message parse_template_message(const Json& m, const std::string& w, Role role, const Fail& fail) {
  Message msg;
  msg.role = role;
  const Json* calls = find(m, "tool_calls");
  if (given(calls)) {
    if (role != Role::kAssistant) fail.invalid(w + ".tool_calls", "is only allowed on assistant messages");
    msg.tool_calls = tool_calls_of(*calls, w + ".tool_calls", fail);
  }
  const Json* content = find(m, "content");
  if (!given(content)) {
    if (!msg.tool_calls) fail.invalid(w + ".content", "must be a string or an array of text parts");
  } else {
    msg.content = content_text(*content, w + ".content", fail);
  }
  for (const char* key : {"tool_call_id", "name"}) {
    const Json* v = find(m, key);
    if (v == nullptr) continue;
    if (!v->is_string()) fail.invalid(w + "." + key, "must be a string");
    (key[0] == 'n' ? msg.name : msg.tool_call_id) = v->template get<std::string>();
  }
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string& k = it.key();
    if (k == "role" || k == "content" || k == "name" || k == "tool_call_id" || k == "tool_calls") continue;
    msg.extra[k] = nlohmann::ordered_json(*it);
  }
  return msg;
}

template <class Json>
Messages parse(const Json& messages, MessagePolicy policy) {
  const Fail fail(policy);
  if (!messages.is_array()) fail.invalid("messages", "must be an array");
  if (messages.empty()) {
    fail.invalid("messages", fail.api() ? "must not be empty" : "must contain at least one message");
  }
  Messages out;
  out.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string w = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) fail.invalid(w, "must be an object");
    const Json* role = find(m, "role");
    if (role == nullptr || !role->is_string()) fail.invalid(w + ".role", fail.api() ? "is required" : "must be a string");
    const std::string& role_text = role->template get_ref<const std::string&>();
    const std::optional<Role> r = role_of(role_text, fail);
    if (!r) {
      if (!fail.api()) fail.invalid(w + ".role", "must be one of system, user, assistant, tool");
      if (role_text == "function") fail.not_supported(w + ".role", "the legacy function role is not available; use tool");
      fail.invalid(w + ".role", "is not a valid role");
    }
    out.push_back(fail.api() ? parse_api_message(m, w, *r, fail) : parse_template_message(m, w, *r, fail));
  }
  return out;
}

}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::kSystem:
      return "system";
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kTool:
      return "tool";
  }
  return "user";
}

Messages parse_messages(const nlohmann::json& messages, MessagePolicy policy) {
  return parse(messages, policy);
}

Messages parse_messages(const nlohmann::ordered_json& messages, MessagePolicy policy) {
  return parse(messages, policy);
}

Message text_message(Role role, std::string content) {
  Message m;
  m.role = role;
  m.content = std::move(content);
  return m;
}

nlohmann::ordered_json to_json(const Messages& messages) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Message& m : messages) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["role"] = role_name(m.role);
    j["content"] = m.content ? nlohmann::ordered_json(*m.content) : nlohmann::ordered_json(nullptr);
    if (m.name) j["name"] = *m.name;
    if (m.tool_call_id) j["tool_call_id"] = *m.tool_call_id;
    if (m.tool_calls) j["tool_calls"] = nlohmann::ordered_json(*m.tool_calls);
    for (auto it = m.extra.begin(); it != m.extra.end(); ++it) j[it.key()] = *it;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace a3s::power::chat

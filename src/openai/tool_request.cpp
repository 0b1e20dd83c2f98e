#include "openai/tool_request.h"

#include <set>

#include "privacy/wipe_text.h"
#include "openai/api_error.h"
#include "openai/request_fields.h"

namespace a3s::power::openai {
namespace {

using ojson = nlohmann::ordered_json;

constexpr size_t kMaxTools = 128;
constexpr size_t kMaxNameBytes = 64;

bool valid_name(const ojson& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool given(const ojson& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && !it->is_null();
}

ojson validated_tools(const ojson& tools) {
  if (!tools.is_array()) bad_field("tools", "'tools' must be an array");
  if (tools.empty()) bad_field("tools", "'tools' must not be empty");
  if (tools.size() > kMaxTools) bad_field("tools", "'tools' holds at most " + std::to_string(kMaxTools) + " tools");
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string here = "tools[" + std::to_string(i) + "]";
    const ojson& t = tools[i];
    if (!t.is_object()) bad_field(here, "'" + here + "' must be an object");
    for (auto it = t.begin(); it != t.end(); ++it) {
      if (it.key() != "type" && it.key() != "function") bad_field(here, "'" + here + "' has an unknown field");
    }
    auto type = t.find("type");
    if (type == t.end() || !type->is_string()) bad_field(here + ".type", "'" + here + ".type' must be \"function\"");
    if (*type != "function") unsupported_field(here + ".type", "only function tools are available");
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object()) bad_field(here + ".function", "'" + here + ".function' must be an object");
    for (auto it = fn->begin(); it != fn->end(); ++it) {
      const std::string& k = it.key();
      if (k != "name" && k != "description" && k != "parameters" && k != "strict") {
        bad_field(here + ".function", "'" + here + ".function' has an unknown field");
      }
    }
    auto name = fn->find("name");
    if (name == fn->end() || !valid_name(*name)) {
      bad_field(here + ".function.name", "'" + here + ".function.name' must be 1 to 64 letters, digits, '_' or '-'");
    }
    if (!names.insert(name->get<std::string>()).second) {
      bad_field(here + ".function.name", "'" + here + ".function.name' repeats the name of an earlier tool");
    }
    auto desc = fn->find("description");
    if (desc != fn->end() && !desc->is_null() && !desc->is_string()) {
      bad_field(here + ".function.description", "'" + here + ".function.description' must be a string");
    }
    auto params = fn->find("parameters");
    if (params != fn->end() && !params->is_null() && !params->is_object()) {
      bad_field(here + ".function.parameters", "'" + here + ".function.parameters' must be a JSON Schema object");
    }
    // A call's arguments are an object: a schema that allows anything else cannot describe them.
    if (params != fn->end() && params->is_object() && !params->empty() &&
        (params->value("type", ojson()) != "object" || params->value("nullable", false) == true)) {
      bad_field(here + ".function.parameters",
                "'" + here + ".function.parameters' must be a JSON Schema of type \"object\"");
    }
    auto strict = fn->find("strict");
    if (strict != fn->end() && !strict->is_null() && !strict->is_boolean()) {
      bad_field(here + ".function.strict", "'" + here + ".function.strict' must be a boolean");
    }
  }
  return tools;
}

}  // namespace

ToolRequest parse_tool_request(const ojson& body) {
  ToolRequest out;
  if (given(body, "tools")) out.tools = validated_tools(body["tools"]);
  if (given(body, "parallel_tool_calls")) {
    if (!body["parallel_tool_calls"].is_boolean()) {
      bad_field("parallel_tool_calls", "'parallel_tool_calls' must be a boolean");
    }
    out.parallel = body["parallel_tool_calls"].get<bool>();
  }
  if (given(body, "tool_choice")) {
    const ojson& c = body["tool_choice"];
    if (c.is_string()) {
      const std::string& s = c.get_ref<const std::string&>();
      if (s == "auto") {
        out.choice.kind = ToolChoice::Kind::kAuto;
      } else if (s == "none") {
        out.choice.kind = ToolChoice::Kind::kNone;
      } else if (s == "required") {
        out.choice.kind = ToolChoice::Kind::kRequired;
      } else {
        bad_field("tool_choice", "'tool_choice' must be \"auto\", \"none\", \"required\" or a function");
      }
    } else if (c.is_object()) {
      auto type = c.find("type");
      auto fn = c.find("function");
      if (type == c.end() || *type != "function" || fn == c.end() || !fn->is_object() || !fn->contains("name") ||
          !(*fn)["name"].is_string()) {
        bad_field("tool_choice", "'tool_choice' must be {\"type\": \"function\", \"function\": {\"name\": …}}");
      }
      out.choice.kind = ToolChoice::Kind::kNamed;
      out.choice.name = (*fn)["name"].get<std::string>();
      bool found = false;
      if (out.tools.is_array()) {
        for (const ojson& t : out.tools) found = found || t["function"]["name"] == out.choice.name;
      }
      if (!found) bad_field("tool_choice", "'tool_choice' names a function that is not in 'tools'");
    } else {
      bad_field("tool_choice", "'tool_choice' must be a string or an object");
    }
    if (out.tools.is_null() && out.choice.kind == ToolChoice::Kind::kRequired) {
      bad_field("tool_choice", "'tool_choice' \"required\" needs 'tools'");
    }
  }
  return out;
}

void apply_tool_request(const ToolRequest& tools, runtime::CompletionRequest& request) {
  if (!tools.active()) return;
  request.tools = tools.tools;
  request.parse_tool_calls = true;
  request.tool_call_required =
      tools.choice.kind == ToolChoice::Kind::kRequired || tools.choice.kind == ToolChoice::Kind::kNamed;
  request.tool_call_name = tools.choice.name;
  request.parallel_tool_calls = tools.parallel;
}

ojson ordered_fields(const nlohmann::json& body, const std::string& raw_body, std::initializer_list<const char*> keys) {
  ojson fields = ojson::object();
  ojson ordered = raw_body.empty() ? ojson(body) : ojson::parse(raw_body, nullptr, /*allow_exceptions=*/false);
  for (const char* k : keys) {
    if (ordered.is_object() && ordered.contains(k)) fields[k] = std::move(ordered[k]);
  }
  privacy::wipe_json(ordered);
  return fields;
}

const ojson& tool_parameters(const ToolRequest& tools, const std::string& name) {
  static const ojson kEmpty = ojson::object();
  if (!tools.tools.is_array()) return kEmpty;
  for (const ojson& t : tools.tools) {
    const ojson& fn = t["function"];
    if (fn["name"] != name) continue;
    auto p = fn.find("parameters");
    return p == fn.end() || p->is_null() ? kEmpty : *p;
  }
  return kEmpty;
}

}  // namespace a3s::power::openai

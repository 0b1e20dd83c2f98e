#include "chat/conversation.h"

#include <string>

#include "chat/field_error.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using Json = nlohmann::ordered_json;

constexpr ErrorCode kInvalid = codes::kInvalidRequest;

}  // namespace

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

// Mistral Nemo (mistralai/Mistral-Nemo-Instruct-2407): bos_token, then "[INST]USER[/INST]" and
// "ASSISTANT</s>" alternating (roles must alternate after an optional leading system message, which
// is prepended to the LAST user message as "SYSTEM\n\nUSER"); with tools, "[AVAILABLE_TOOLS][...]
// [/AVAILABLE_TOOLS]" precedes the last user message; tool calls as "[TOOL_CALLS][{...tojson(function)
// minus its closing brace, "id": "ID"}]</s>" (ids of exactly 9 characters) and results as
// "[TOOL_RESULTS]{"content": ..., "call_id": "ID"}[/TOOL_RESULTS]".
#include <utility>
#include <vector>

#include "chat/families/render_context.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using py::Json;
using py::Ref;

constexpr const char* kAlternate =
    "After the optional system message, conversation roles must alternate "
    "user/assistant/user/assistant/...";
constexpr const char* kBadId = "Tool call IDs should be alphanumeric strings with length 9!";

bool has_calls(const Json& m) {
  return m.contains("tool_calls");
}

bool id_ok(const Ref& id) {
  return id.defined() && py::length(id) == 9;
}

void render_tools(std::string& out, const Json& tools) {
  out += "[AVAILABLE_TOOLS][";
  for (std::size_t k = 0; k < tools.size(); ++k) {
    const Ref tool = py::attr(tools[k], "function");
    if (!tool.defined()) py::raise_undefined(tool.undefined_hint);
    if (!tool->is_object()) {
      py::raise_undefined("'" + py::type_name(*tool) + " object' has no attribute 'items'");
    }
    out += "{\"type\": \"function\", \"function\": {";
    std::vector<std::pair<std::string, const Json*>> items;
    for (const auto& [key, val] : tool->items()) {
      if (key != "return") items.emplace_back(key, &val);
    }
    for (std::size_t j = 0; j < items.size(); ++j) {
      const auto& [key, val] = items[j];
      if (val->is_string()) {
        out += "\"" + key + "\": \"" + val->get<std::string>() + "\"";
      } else {
        out += "\"" + key + "\": " + py::dumps(*val);
      }
      if (j + 1 != items.size()) out += ", ";
    }
    out += "}}";
    out += k + 1 != tools.size() ? ", " : "]";
  }
  out += "[/AVAILABLE_TOOLS]";
}

}  // namespace

std::string render_mistral_nemo(const RenderContext& ctx) {
  std::size_t begin = 0;
  const Ref* system_message = nullptr;
  Ref system_ref;
  if (ctx.role(0) == "system") {
    system_ref = ctx.content(0);
    system_message = &system_ref;
    begin = 1;
  }
  const Ref tools = ctx.tools_ref();
  const bool has_tools = tools.defined() && !tools->is_null();
  // The last user message (by value: equal messages all get the tool list).
  const Json* last_user = nullptr;
  for (std::size_t i = begin; i < ctx.size(); ++i) {
    if (ctx.role(i) == "user") last_user = &ctx.message(i);
  }
  std::size_t index = 0;
  for (std::size_t i = begin; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    if (!(role == "tool" || role == "tool_results" || has_calls(ctx.message(i)))) {
      if ((role == "user") != (index % 2 == 0)) py::raise_template_error(kAlternate);
      ++index;
    }
  }
  std::string out = ctx.bos_token;
  const std::size_t n = ctx.size();
  for (std::size_t i = begin; i < n; ++i) {
    const std::string& role = ctx.role(i);
    const Json& m = ctx.message(i);
    if (role == "user") {
      if (has_tools && last_user != nullptr && py::equal(m, *last_user)) render_tools(out, *tools);
      std::string s = "[INST]";
      if (i + 1 == n && system_message != nullptr) {
        py::append(s, *system_message);
        s += "\n\n";
      }
      py::append(s, ctx.content(i));
      out += s + "[/INST]";
    } else if (has_calls(m)) {
      out += "[TOOL_CALLS][";
      const Json& calls = m["tool_calls"];
      for (std::size_t k = 0; k < calls.size(); ++k) {
        const std::string fn = py::dumps(calls[k]["function"]);
        out += fn.substr(0, fn.size() - 1);
        const Ref id = py::attr(calls[k], "id");
        if (!id_ok(id)) py::raise_template_error(kBadId);
        std::string s = ", \"id\": \"";
        py::append(s, id);
        out += s + "\"}";
        out += k + 1 != calls.size() ? ", " : "]" + ctx.eos_token;
      }
    } else if (role == "assistant") {
      out += py::left_operand(ctx.content(i)) + ctx.eos_token;
    } else if (role == "tool_results" || role == "tool") {
      const Ref content = ctx.content(i);
      // `message.content.content is defined` is false for a string content.
      out += "[TOOL_RESULTS]{\"content\": " + py::str(content) + ", ";
      const Ref id = py::attr(m, "tool_call_id");
      if (!id_ok(id)) py::raise_template_error(kBadId);
      std::string s = "\"call_id\": \"";
      py::append(s, id);
      out += s + "\"}[/TOOL_RESULTS]";
    } else {
      py::raise_template_error(
          "Only user and assistant roles are supported, with the exception of an initial optional "
          "system message!");
    }
  }
  return out;
}

}  // namespace a3s::power::chat

// Hermes 3 tool-use template (NousResearch/Hermes-3-Llama-3.1-*, chat_template "tool_use"):
// bos_token, a fixed function-calling system turn that lists every tool as
//   {"type": "function", "function": {"name": N, "description": "N(arg: type, ...) - DESC\n\n
//    Args:\n        arg(type): arg description...", "parameters": tojson(parameters)}}
// where the Python type names come from the template's json_to_python_type macro, then ChatML turns;
// assistant tool calls as "<tool_call>\n{"name": "N", "arguments": ARGS}\n</tool_call>" and tool
// results as "<tool_response>\n...\n</tool_response>" inside a "tool" turn.
#include "chat/chat_template.h"
#include "chat/families/render_context.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using py::Json;
using py::Ref;

[[noreturn]] void unsupported_schema() {
  throw FieldError(codes::kUnsupportedField, "tools",
                   "tools: this chat template cannot render a parameter whose JSON Schema type is not "
                   "one of string, number, integer, boolean, array, object or a list of those");
}

bool is_iterable(const Ref& v) {
  return !v.defined() || v->is_string() || v->is_array() || v->is_object();
}

std::string python_type(const Ref& spec, int depth = 0);

// The macro called on the `spec|items` generator of an array schema: a generator has no `type`,
// and an undefined type is iterable (as empty), hence "Union[]".
std::string python_type_of_items() {
  return "Union[]";
}

std::string python_type_of_type_value(const Json& t, int depth) {
  // json_to_python_type({"type": t})
  Json spec = Json::object();
  spec["type"] = t;
  return python_type(py::defined(spec), depth + 1);
}

std::string python_type(const Ref& spec, int depth) {
  if (depth > 64) unsupported_schema();
  if (!spec.defined()) py::raise_undefined(spec.undefined_hint);
  const Ref type = py::attr(*spec, "type");
  if (type.defined() && type->is_string()) {
    const std::string& t = type->get_ref<const std::string&>();
    if (t == "string") return "str";
    if (t == "number") return "float";
    if (t == "integer") return "int";
    if (t == "boolean") return "bool";
    if (t == "array") return "list[" + python_type_of_items() + "]";
    if (t == "object") {
      const Ref extra = py::attr(*spec, "additionalProperties");
      if (extra.defined()) return "dict[str, " + python_type(extra, depth + 1) + "]";
      return "dict";
    }
    // Any other non-empty string recurses on its own characters forever in the template.
    if (!t.empty()) unsupported_schema();
    return "Union[]";
  }
  if (!is_iterable(type)) return "Any";
  // A list (or the keys of a dict) of types: "Union[A,B]"; Undefined iterates as empty.
  std::string out = "Union[";
  if (type.defined()) {
    bool first = true;
    auto one = [&](const Json& t) {
      if (!first) out += ",";
      first = false;
      out += python_type_of_type_value(t, depth);
    };
    if (type->is_object()) {
      for (const auto& [key, unused] : type->items()) one(Json(key));
    } else {
      for (const auto& t : *type) one(t);
    }
  }
  return out + "]";
}

void render_tool(std::string& out, const Json& tool_item) {
  Ref tool = py::defined(tool_item);
  const Ref fn = py::attr(tool, "function");
  if (fn.defined()) tool = fn;
  out += "{\"type\": \"function\", \"function\": ";
  std::string s = "{\"name\": \"";
  py::append(s, py::attr(tool, "name"));
  out += s + "\", ";
  s = "\"description\": \"";
  py::append(s, py::attr(tool, "name"));
  out += s + "(";
  const Ref params = py::attr(tool, "parameters");
  const Ref props = py::attr(params, "properties");
  auto each_property = [&](auto&& f) {
    if (!props.defined()) return;
    if (!props->is_object()) py::raise_type_error("Can only get item pairs from a mapping.");
    std::size_t k = 0;
    for (const auto& [name, fields] : props->items()) f(k++, name, fields);
  };
  each_property([&](std::size_t k, const std::string& name, const Json& fields) {
    out += name + ": " + python_type(py::defined(fields));
    if (k + 1 != props->size()) out += ", ";
  });
  out += ")";
  const Ref ret = py::attr(tool, "return");
  if (ret.defined()) out += " -> " + python_type(ret);
  s = " - ";
  py::append(s, py::attr(tool, "description"));
  out += s + "\n\n";
  each_property([&](std::size_t k, const std::string& name, const Json& fields) {
    if (k == 0) out += "    Args:\n";
    out += "        " + name + "(" + python_type(py::defined(fields)) +
           "): " + py::trim(py::attr(fields, "description"));
  });
  if (ret.defined() && py::attr(ret, "description").defined()) {
    s = "\n    Returns:\n        ";
    py::append(s, py::attr(ret, "description"));
    out += s;
  }
  out += "\"";
  out += ", \"parameters\": ";
  if (py::length(props) == 0) {
    out += "{}";
  } else {
    out += py::dumps(*params);
  }
  out += "}";
}

}  // namespace

std::string render_hermes3_tool_use(const RenderContext& ctx) {
  std::string out = ctx.bos_token;
  out += "<|im_start|>system\n";
  out +=
      "You are a function calling AI model. You are provided with function signatures within "
      "<tools></tools> XML tags. You may call one or more functions to assist with the user query. "
      "Don't make assumptions about what values to plug into functions. Here are the available "
      "tools: <tools> ";
  const Ref tools = ctx.tools_ref();
  py::require_iterable(tools);
  if (tools.defined()) {
    if (!tools->is_array()) {
      throw FieldError(codes::kUnsupportedField, "tools", "tools: this chat template needs a list of tools");
    }
    for (std::size_t k = 0; k < tools->size(); ++k) {
      render_tool(out, (*tools)[k]);
      if (k + 1 != tools->size()) out += "\n";
    }
  }
  out += " </tools>";
  out +=
      "Use the following pydantic model json schema for each tool call you will make: "
      "{\"properties\": {\"name\": {\"title\": \"Name\", \"type\": \"string\"}, \"arguments\": "
      "{\"title\": \"Arguments\", \"type\": \"object\"}}, \"required\": [\"name\", \"arguments\"], "
      "\"title\": \"FunctionCall\", \"type\": \"object\"}}\n";
  out +=
      "For each function call return a json object with function name and arguments within "
      "<tool_call></tool_call> XML tags as follows:\n";
  out += "<tool_call>\n";
  out += "{\"name\": <function-name>, \"arguments\": <args-dict>}\n";
  out += "</tool_call><|im_end|>\n";

  const std::size_t n = ctx.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& role = ctx.role(i);
    const Json& m = ctx.message(i);
    const Ref calls = py::attr(m, "tool_calls");
    if (role == "user" || role == "system" || (role == "assistant" && !calls.defined())) {
      std::string turn = "<|im_start|>" + role + "\n";
      py::append(turn, ctx.content(i));
      out += turn + "<|im_end|>\n";
    } else if (role == "assistant") {
      out += "<|im_start|>" + role;
      for (const auto& call : *calls) {
        out += "\n<tool_call>\n";
        Ref tc = py::defined(call);
        const Ref fn = py::attr(tc, "function");
        if (fn.defined()) tc = fn;
        out += "{";
        out += "\"name\": \"";
        out += py::str(py::attr(tc, "name"));
        out += "\"";
        out += ", ";
        const Ref args = py::attr(tc, "arguments");
        if (args.defined()) {
          out += "\"arguments\": ";
          out += args->is_string() ? args->get<std::string>() : py::dumps(*args);
        }
        out += "}";
        out += "\n</tool_call>";
      }
      out += "<|im_end|>\n";
    } else if (role == "tool") {
      if (i > 0 && ctx.role(i - 1) != "tool") out += "<|im_start|>tool\n";
      out += "<tool_response>\n";
      out += py::str(ctx.content(i));
      const bool last = i + 1 == n;
      out += last ? "\n</tool_response>" : "\n</tool_response>\n";
      if (!last && ctx.role(i + 1) != "tool") {
        out += "<|im_end|>";
      } else if (last) {
        out += "<|im_end|>";
      }
    }
  }
  if (ctx.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

}  // namespace a3s::power::chat

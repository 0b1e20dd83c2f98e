// Qwen2.5 Instruct (ChatML with a default system prompt and Hermes-style tool calling), as the
// template published with Qwen/Qwen2.5-*-Instruct renders it:
//   system turn: messages[0] if it is a system message, else "You are Qwen, created by Alibaba
//   Cloud. You are a helpful assistant."; with tools it is followed by the "# Tools" section
//   listing every tool as tojson on its own line inside <tools></tools>;
//   assistant tool calls: "<tool_call>\n{"name": NAME, "arguments": tojson(ARGS)}\n</tool_call>";
//   consecutive tool results share one user turn of "<tool_response>\n...\n</tool_response>".
#include "chat/families/render_context.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

constexpr const char* kDefaultSystem = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

// `value | tojson` for a template value (Undefined is not JSON serialisable).
std::string tojson(const py::Ref& v) {
  if (!v.defined()) py::raise_type_error("Object of type Undefined is not JSON serializable");
  return py::dumps(*v);
}

}  // namespace

std::string render_qwen25(const RenderContext& ctx) {
  std::string out;
  const py::Ref tools = ctx.tools_ref();
  const bool first_is_system = ctx.role(0) == "system";
  if (py::truthy(tools)) {
    out += "<|im_start|>system\n";
    out += first_is_system ? py::str(ctx.content(0)) : std::string(kDefaultSystem);
    out +=
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
    for (const auto& tool : *tools) out += "\n" + py::dumps(tool);
    out +=
        "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
        "within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
        "\"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n";
  } else if (first_is_system) {
    std::string s = "<|im_start|>system\n";
    py::append(s, ctx.content(0));
    out += s + "<|im_end|>\n";
  } else {
    out += std::string("<|im_start|>system\n") + kDefaultSystem + "<|im_end|>\n";
  }
  const std::size_t n = ctx.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& role = ctx.role(i);
    const py::Json& m = ctx.message(i);
    const py::Ref calls = py::attr(m, "tool_calls");
    if (role == "user" || (role == "system" && i != 0) || (role == "assistant" && !py::truthy(calls))) {
      std::string turn = "<|im_start|>" + role + "\n";
      py::append(turn, ctx.content(i));
      out += turn + "<|im_end|>\n";
    } else if (role == "assistant") {
      out += "<|im_start|>" + role;
      const py::Ref content = ctx.content(i);
      if (py::truthy(content)) {
        std::string s = "\n";
        py::append(s, content);
        out += s;
      }
      for (const auto& call : *calls) {
        py::Ref tc = py::defined(call);
        const py::Ref fn = py::attr(tc, "function");
        if (fn.defined()) tc = fn;
        out += "\n<tool_call>\n{\"name\": \"";
        out += py::str(py::attr(tc, "name"));
        out += "\", \"arguments\": ";
        out += tojson(py::attr(tc, "arguments"));
        out += "}\n</tool_call>";
      }
      out += "<|im_end|>\n";
    } else if (role == "tool") {
      if (i == 0 || ctx.role(i - 1) != "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n";
      out += py::str(ctx.content(i));
      out += "\n</tool_response>";
      if (i + 1 == n || ctx.role(i + 1) != "tool") out += "<|im_end|>\n";
    }
  }
  if (ctx.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

}  // namespace a3s::power::chat

// Llama 3 header format: "<|start_header_id|>ROLE<|end_header_id|>\n\nCONTENT<|eot_id|>".
//
// llama3.0 (Meta-Llama-3-*-Instruct): bos_token, then every message with its content trimmed,
//   then the assistant header when add_generation_prompt.
// llama3.1 (Llama-3.1/3.3 Instruct) and llama3.2 (Llama-3.2 1B/3B Instruct): bos_token, a system
//   turn "Cutting Knowledge Date: December 2023\nToday Date: DATE\n\n" + the trimmed system
//   message (DATE is the fixed "26 Jul 2024" in 3.1 and strftime_now("%d %b %Y") in 3.2); with
//   tools, "Environment: ipython\n" first and the tool list (tojson, indent 4) prepended to the
//   first user message; one tool call per assistant message as
//   {"name": "N", "parameters": tojson(ARGS)}; tool results in "ipython" turns.
#include "chat/families/render_context.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using py::Json;
using py::Ref;

constexpr const char* kHeaderEnd = "<|end_header_id|>\n\n";

std::string render_llama31_style(const RenderContext& ctx, const std::string& date) {
  std::string out = ctx.bos_token;
  const Ref tools = ctx.tools_ref();
  const bool has_tools = tools.defined() && !tools->is_null();
  std::size_t begin = 0;  // `messages` after the template drops the system (and first user) message
  std::string system_message;
  if (ctx.role(0) == "system") {
    system_message = py::trim(ctx.content(0));
    begin = 1;
  }
  out += std::string("<|start_header_id|>system") + kHeaderEnd;
  if (has_tools) out += "Environment: ipython\n";
  out += "Cutting Knowledge Date: December 2023\n";
  out += "Today Date: " + date + "\n\n";
  out += system_message;
  out += "<|eot_id|>";
  if (has_tools) {
    if (begin >= ctx.size()) {
      py::raise_template_error(
          "Cannot put tools in the first user message when there's no first user message!");
    }
    const std::string first_user_message = py::trim(ctx.content(begin));
    ++begin;
    out += std::string("<|start_header_id|>user") + kHeaderEnd;
    out += "Given the following functions, please respond with a JSON for a function call ";
    out += "with its proper arguments that best answers the given prompt.\n\n";
    out +=
        "Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name "
        "and its value}.";
    out += "Do not use variables.\n\n";
    for (const auto& t : *tools) out += py::dumps(t, 4) + "\n\n";
    out += first_user_message + "<|eot_id|>";
  }
  for (std::size_t i = begin; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    const Json& m = ctx.message(i);
    const bool has_calls = m.contains("tool_calls");
    if (!(role == "ipython" || role == "tool" || has_calls)) {
      out += "<|start_header_id|>" + role + kHeaderEnd + py::trim(ctx.content(i)) + "<|eot_id|>";
    } else if (has_calls) {
      const Json& calls = m["tool_calls"];
      if (calls.size() != 1) py::raise_template_error("This model only supports single tool-calls at once!");
      const Ref fn = py::attr(calls[0], "function");
      std::string s = std::string("<|start_header_id|>assistant") + kHeaderEnd + "{\"name\": \"";
      py::append(s, py::attr(fn, "name"));
      out += s + "\", ";
      out += "\"parameters\": ";
      const Ref args = py::attr(fn, "arguments");
      if (!args.defined()) py::raise_type_error("Object of type Undefined is not JSON serializable");
      out += py::dumps(*args);
      out += "}";
      out += "<|eot_id|>";
    } else {
      out += std::string("<|start_header_id|>ipython") + kHeaderEnd;
      const Ref content = ctx.content(i);
      // `content is mapping or content is iterable`: strings, lists and dicts go through tojson.
      if (content->is_string() || content->is_array() || content->is_object()) {
        out += py::dumps(*content);
      } else {
        out += py::str(content);
      }
      out += "<|eot_id|>";
    }
  }
  if (ctx.add_generation_prompt) out += std::string("<|start_header_id|>assistant") + kHeaderEnd;
  return out;
}

}  // namespace

std::string render_llama30(const RenderContext& ctx) {
  std::string out;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    std::string content =
        "<|start_header_id|>" + ctx.role(i) + kHeaderEnd + py::trim(ctx.content(i)) + "<|eot_id|>";
    if (i == 0) content = ctx.bos_token + content;
    out += content;
  }
  if (ctx.add_generation_prompt) out += std::string("<|start_header_id|>assistant") + kHeaderEnd;
  return out;
}

std::string render_llama31(const RenderContext& ctx) {
  return render_llama31_style(ctx, "26 Jul 2024");
}

std::string render_llama32(const RenderContext& ctx) {
  return render_llama31_style(ctx, ctx.today_dmy);
}

}  // namespace a3s::power::chat

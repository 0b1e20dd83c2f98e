// DeepSeek-R1 distilled models (deepseek-ai/DeepSeek-R1-Distill-*): bos_token, the LAST system
// message's text, then "<｜User｜>USER" and "<｜Assistant｜>ANSWER<｜end▁of▁sentence｜>" where an
// assistant answer keeps only the text after its last "</think>" (the reasoning is dropped from the
// history); tool calls and tool outputs use the "<｜tool▁…｜>" markers; the generation prompt is
// "<｜Assistant｜><think>\n" (not after tool outputs).
#include "chat/families/render_context.h"

namespace a3s::power::chat {
namespace {

using py::Json;
using py::Ref;

// The template's `'...' + tool['function']['arguments'] + ...` for one call, from `type` on.
std::string call_text(const Json& call) {
  std::string s;
  py::append(s, py::attr(call, "type"));
  s += "<｜tool▁sep｜>";
  const Ref fn = py::attr(call, "function");
  py::append(s, py::attr(fn, "name"));
  s += "\n```json\n";
  py::append(s, py::attr(fn, "arguments"));
  s += "\n```<｜tool▁call▁end｜>";
  return s;
}

std::string after_last_think(const std::string& content) {
  const std::string tag = "</think>";
  const auto pos = content.rfind(tag);
  if (pos == std::string::npos) return content;
  return content.substr(pos + tag.size());
}

}  // namespace

std::string render_deepseek_r1(const RenderContext& ctx) {
  bool is_first = false;
  bool is_tool = false;
  bool is_output_first = true;
  std::string system_prompt;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    if (ctx.role(i) == "system") system_prompt = py::str(ctx.content(i));
  }
  std::string out = ctx.bos_token + system_prompt;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    const Json& m = ctx.message(i);
    const Ref content = ctx.content(i);
    if (role == "user") {
      is_tool = false;
      std::string s = "<｜User｜>";
      py::append(s, content);
      out += s;
    }
    if (role == "assistant" && content->is_null()) {
      is_tool = false;
      const Ref calls = py::attr(m, "tool_calls");
      py::require_iterable(calls);
      if (calls.defined()) {
        for (const auto& call : *calls) {
          if (!is_first) {
            out += "<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>" + call_text(call);
            is_first = true;
          } else {
            out += "\n<｜tool▁call▁begin｜>" + call_text(call) + "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>";
          }
        }
      }
    }
    if (role == "assistant" && !content->is_null()) {
      if (is_tool) {
        std::string s = "<｜tool▁outputs▁end｜>";
        py::append(s, content);
        out += s + "<｜end▁of▁sentence｜>";
        is_tool = false;
      } else {
        const std::string text = py::left_operand(content);
        out += "<｜Assistant｜>" + after_last_think(text) + "<｜end▁of▁sentence｜>";
      }
    }
    if (role == "tool") {
      is_tool = true;
      std::string s =
          is_output_first ? "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>" : "\n<｜tool▁output▁begin｜>";
      py::append(s, content);
      out += s + "<｜tool▁output▁end｜>";
      is_output_first = false;
    }
  }
  if (is_tool) out += "<｜tool▁outputs▁end｜>";
  if (ctx.add_generation_prompt && !is_tool) out += "<｜Assistant｜><think>\n";
  return out;
}

}  // namespace a3s::power::chat

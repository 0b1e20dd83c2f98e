// The plain format for models without a chat template (base models such as stories260K).
//
// A conversation of exactly one user message renders to that message's text alone, so that
// chatting with a base model continues the text as a raw completion would. Any other conversation
// renders one line per message, "System: …", "User: …", "Assistant: …" or "Tool: …", each
// followed by "\n", then "Assistant:" when add_generation_prompt. No BOS/EOS text is added (the
// tokenizer adds BOS). Tools and tool calls have no plain form: FieldError(codes::kUnsupportedField).
#include "chat/chat_template.h"
#include "chat/families/render_context.h"

namespace a3s::power::chat {
namespace {

std::string label(const std::string& role) {
  if (role == "system") return "System";
  if (role == "user") return "User";
  if (role == "assistant") return "Assistant";
  return "Tool";
}

}  // namespace

std::string render_plain(const RenderContext& ctx) {
  if (ctx.tools != nullptr && !ctx.tools->empty()) {
    throw FieldError(codes::kUnsupportedField, "tools", "tools are not supported by the plain chat format");
  }
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    if (ctx.message(i).contains("tool_calls")) {
      throw FieldError(codes::kUnsupportedField, "messages",
                       "messages[" + std::to_string(i) +
                           "].tool_calls: tool calls are not supported by the "
                           "plain chat format");
    }
  }
  if (ctx.size() == 1 && ctx.role(0) == "user") return py::str(ctx.content(0));
  std::string out;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    out += label(ctx.role(i)) + ": " + py::str(ctx.content(i)) + "\n";
  }
  if (ctx.add_generation_prompt) out += "Assistant:";
  return out;
}

}  // namespace a3s::power::chat

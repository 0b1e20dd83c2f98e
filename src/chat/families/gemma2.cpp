// Gemma 2 (google/gemma-2-*-it; Gemma 1 uses the same template): bos_token, then
// "<start_of_turn>ROLE\nCONTENT<end_of_turn>\n" with the content trimmed and "assistant" written as
// "model"; "<start_of_turn>model\n" when add_generation_prompt. A leading system message raises
// "System role not supported"; roles must alternate starting with user.
#include "chat/families/render_context.h"

namespace a3s::power::chat {

std::string render_gemma2(const RenderContext& ctx) {
  std::string out = ctx.bos_token;
  if (ctx.role(0) == "system") py::raise_template_error("System role not supported");
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    if ((role == "user") != (i % 2 == 0)) {
      py::raise_template_error("Conversation roles must alternate user/assistant/user/assistant/...");
    }
    const std::string shown = role == "assistant" ? "model" : role;
    out += "<start_of_turn>" + shown + "\n" + py::trim(ctx.content(i)) + "<end_of_turn>\n";
  }
  if (ctx.add_generation_prompt) out += "<start_of_turn>model\n";
  return out;
}

}  // namespace a3s::power::chat

// Phi-3 / Phi-3.5 (microsoft/Phi-3.5-mini-instruct): "<|system|>\n", "<|user|>\n" and
// "<|assistant|>\n" turns ending in "<|end|>\n" (other roles are skipped; Phi-3.5 also skips an
// empty system message), then "<|assistant|>\n" when add_generation_prompt, else eos_token.
#include "chat/families/render_context.h"

namespace a3s::power::chat {

std::string render_phi3(const RenderContext& ctx) {
  std::string out;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    const py::Ref content = ctx.content(i);
    std::string turn;
    if (role == "system" && (!ctx.traits.system_requires_content || py::truthy(content))) {
      turn = "<|system|>\n";
    } else if (role == "user") {
      turn = "<|user|>\n";
    } else if (role == "assistant") {
      turn = "<|assistant|>\n";
    } else {
      continue;
    }
    py::append(turn, content);
    out += turn + "<|end|>\n";
  }
  out += ctx.add_generation_prompt ? std::string("<|assistant|>\n") : ctx.eos_token;
  return out;
}

}  // namespace a3s::power::chat

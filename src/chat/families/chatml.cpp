// ChatML ("<|im_start|>role\ncontent<|im_end|>\n"), the format of the classic ChatML template:
//   [bos_token] [<|im_start|>system\nDEFAULT<|im_end|>\n when messages[0] is not a system message]
//   then every message as above, then "<|im_start|>assistant\n" when add_generation_prompt.
// The template ignores tools and tool calls (the content of every message is concatenated).
#include "chat/families/render_context.h"

namespace a3s::power::chat {

std::string render_chatml(const RenderContext& ctx) {
  std::string out;
  if (ctx.traits.bos_prefix) out += ctx.bos_token;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    if (i == 0 && !ctx.traits.default_system.empty() && ctx.role(0) != "system") {
      out += "<|im_start|>system\n" + ctx.traits.default_system + "<|im_end|>\n";
    }
    std::string turn = "<|im_start|>" + ctx.role(i) + "\n";
    py::append(turn, ctx.content(i));
    out += turn + "<|im_end|>\n";
  }
  if (ctx.add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

}  // namespace a3s::power::chat

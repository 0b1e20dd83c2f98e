// Llama 2 chat (meta-llama/Llama-2-*-chat-hf): for each user message
// "<s>[INST] " + text.strip() + " [/INST]" (bos_token), for each assistant message
// " " + text.strip() + " </s>" (eos_token); a leading system message is wrapped as
// "<<SYS>>\nSYSTEM\n<</SYS>>\n\n" in front of the first user message. Roles must alternate
// starting with user; the template has no generation prompt of its own.
#include "chat/families/render_context.h"

namespace a3s::power::chat {

std::string render_llama2(const RenderContext& ctx) {
  std::size_t begin = 0;
  const py::Json* system_message = nullptr;
  if (ctx.role(0) == "system") {
    system_message = &ctx.message(0)["content"];
    begin = 1;
  }
  std::string out;
  for (std::size_t i = begin; i < ctx.size(); ++i) {
    const std::size_t index0 = i - begin;
    const std::string& role = ctx.role(i);
    if ((role == "user") != (index0 % 2 == 0)) {
      py::raise_template_error("Conversation roles must alternate user/assistant/user/assistant/...");
    }
    const py::Json& content_value = ctx.message(i)["content"];
    std::string content;
    // `system_message != false`: every system content (even "") differs from False.
    if (index0 == 0 && system_message != nullptr) {
      content = "<<SYS>>\n";
      py::append(content, *system_message);
      content += "\n<</SYS>>\n\n";
      py::append(content, content_value);
    } else {
      if (!content_value.is_string()) {
        py::raise_undefined(py::attr(content_value, "strip").undefined_hint);
      }
      content = content_value.get<std::string>();
    }
    if (role == "user") {
      out += ctx.bos_token + "[INST] " + py::strip(content) + " [/INST]";
    } else if (role == "assistant") {
      out += " " + py::strip(content) + " " + ctx.eos_token;
    }
  }
  return out;
}

}  // namespace a3s::power::chat

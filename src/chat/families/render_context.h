// What a family renderer sees: the normalised conversation and the template variables that
// transformers passes (bos_token, eos_token, add_generation_prompt, tools, strftime_now).
#pragma once

#include <string>

#include "chat/py_value.h"

namespace a3s::power::chat {

// Template details recognised in the source that vary within a family.
struct TemplateTraits {
  bool bos_prefix = false;              // chatml: the template prints bos_token first
  std::string default_system;           // chatml: system turn inserted when messages[0] is not system
  bool system_requires_content = true;  // phi3: an empty system message is skipped
};

struct RenderContext {
  const py::Json& messages;  // normalised (see conversation.h): content is a string or null
  const py::Json* tools;     // nullptr → `tools` is undefined in the template
  const std::string& bos_token;
  const std::string& eos_token;
  bool add_generation_prompt;
  std::string today_dmy;  // strftime_now("%d %b %Y"), e.g. "26 Jul 2026"
  TemplateTraits traits;

  const py::Json& message(std::size_t i) const { return messages[i]; }
  std::size_t size() const { return messages.size(); }
  // messages[i].role (always a string after normalisation).
  const std::string& role(std::size_t i) const { return messages[i]["role"].get_ref<const std::string&>(); }
  py::Ref content(std::size_t i) const { return py::attr(messages[i], "content"); }
  // tools as the template's `tools`: Undefined when absent.
  py::Ref tools_ref() const {
    if (tools == nullptr) {
      py::Ref r;
      r.undefined_hint = "'tools' is undefined";
      return r;
    }
    return py::defined(*tools);
  }
};

// One renderer per reproduced template (src/chat/families/*.cpp).
std::string render_plain(const RenderContext& ctx);
std::string render_chatml(const RenderContext& ctx);
std::string render_qwen25(const RenderContext& ctx);
std::string render_hermes3_tool_use(const RenderContext& ctx);
std::string render_llama2(const RenderContext& ctx);
std::string render_llama30(const RenderContext& ctx);
std::string render_llama31(const RenderContext& ctx);
std::string render_llama32(const RenderContext& ctx);
std::string render_mistral_nemo(const RenderContext& ctx);
std::string render_gemma2(const RenderContext& ctx);
std::string render_phi3(const RenderContext& ctx);
std::string render_deepseek_r1(const RenderContext& ctx);
std::string render_command_r7b(const RenderContext& ctx);
std::string render_functionary_v32(const RenderContext& ctx);

}  // namespace a3s::power::chat

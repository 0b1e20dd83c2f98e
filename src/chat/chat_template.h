// Chat templates: OpenAI-style messages → the prompt text the model was trained on.
//
// The template comes from the GGUF key `tokenizer.chat_template` (Jinja source). We recognise the
// common families by signature (ChatML/Qwen, Llama-2, Llama-3, Mistral, Gemma, Phi-3, DeepSeek, …)
// and render them exactly as Python Jinja2 does with transformers' environment. A model without a
// template uses the documented plain fallback. An unrecognised template is an error
// (Error "unsupported_chat_template") unless a fallback family is configured.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace a3s::power::chat {

struct RenderOptions {
  std::string bos_token;  // text of the model's BOS token ("" if none)
  std::string eos_token;  // text of the model's EOS token
  bool add_generation_prompt = true;
};

class ChatTemplate {
 public:
  // template_source: tokenizer.chat_template, or nullopt when the model has none (→ plain fallback).
  // fallback_family: used when the source is not recognised (e.g. "chatml"); empty → error.
  static std::unique_ptr<ChatTemplate> create(const std::optional<std::string>& template_source,
                                              const std::string& fallback_family = "");
  virtual ~ChatTemplate() = default;
  virtual std::string family() const = 0;  // "chatml", "llama3", …, "plain"
  // messages: JSON array of {"role": "...", "content": string | [ {type:"text", text:"..."} ]}.
  // Throws Error("invalid_request_error") with the template's own message when the template rejects
  // the conversation (e.g. Gemma's "System role not supported"); messages never include user text.
  virtual std::string render(const nlohmann::json& messages, const RenderOptions& opts) const = 0;
};

}  // namespace a3s::power::chat

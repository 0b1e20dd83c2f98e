// Prompt tokens of a model, the one way the server and `a3s-power run` make them.
//
// chat(messages): the conversation rendered with the model's chat template (chat/chat_template.h),
// with the tokenizer's BOS / EOS text and the generation prompt, then encoded with special tokens
// parsed in the template's markup only: every caller string is quoted first (runtime/caller_text.h,
// tokenizer/quoted_text.h) — for an interpreter-run template, every caller span of its output
// instead — so "</s>" or "<|im_end|>" typed in a message stays text. The tokenizer adds BOS only when the template did not write it itself, and a prompt never
// ends with EOS (add_eos models). The rendered text is wiped once encoded.
// text_prompt(tokenizer, text): a raw completion prompt: BOS when the model wants one, special tokens
// not parsed (no template needed).
//
// Errors: the template's (chat::FieldError, unsupported_field / invalid_request_error). An empty
// result is returned as is: callers decide whether an empty prompt is an error.
#pragma once

#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "chat/chat_template.h"
#include "chat/messages.h"

namespace a3s::power::runtime {

// What a chat request gives its template besides the messages (chat::RenderOptions). Caller values,
// not owned.
struct ChatPromptOptions {
  const nlohmann::ordered_json* template_kwargs = nullptr;  // chat_template_kwargs, or nullptr
  std::string reasoning_effort;                             // "" for none
  const nlohmann::ordered_json* tools = nullptr;            // the OpenAI `tools` array, or nullptr
};

class PromptBuilder {
 public:
  // Both must outlive the builder.
  PromptBuilder(const Tokenizer& tokenizer, const chat::ChatTemplate& chat_template);

  // Tools are caller values like the messages: quoted the same way.
  std::vector<Token> chat(const chat::Messages& messages, const ChatPromptOptions& options = {}) const;

 private:
  const Tokenizer& tokenizer_;
  const chat::ChatTemplate& template_;
  chat::RenderOptions render_;
};

// [BOS as the model wants] <fim_pre> prefix <fim_suf> suffix <fim_mid> (ModelRuntime::infill_prompt);
// throws chat::FieldError(codes::kUnsupportedField, "suffix") when the model lacks a FIM token.
std::vector<Token> infill_prompt(const Tokenizer& tokenizer, const std::string& prefix, const std::string& suffix);

std::vector<Token> text_prompt(const Tokenizer& tokenizer, const std::string& text);

}  // namespace a3s::power::runtime

#include "runtime/prompt_builder.h"

#include <string_view>

#include "privacy/wipe_text.h"
#include "runtime/caller_text.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

// add_special may also append EOS (add_eos models); a prompt never ends with EOS.
void drop_final_eos(const Tokenizer& tokenizer, bool add_special, std::vector<Token>& tokens) {
  if (add_special && tokenizer.add_eos() && !tokens.empty() && tokens.back() == tokenizer.eos()) tokens.pop_back();
}

}  // namespace

PromptBuilder::PromptBuilder(const Tokenizer& tokenizer, const chat::ChatTemplate& chat_template)
    : tokenizer_(tokenizer), template_(chat_template) {
  if (tokenizer_.bos() >= 0) render_.bos_token = tokenizer_.token_text(tokenizer_.bos());
  if (tokenizer_.eos() >= 0) render_.eos_token = tokenizer_.token_text(tokenizer_.eos());
  render_.add_generation_prompt = true;
}

std::vector<Token> PromptBuilder::chat(const chat::Messages& messages) const {
  // Caller strings are quoted so that only the template's markup becomes control tokens.
  chat::Messages quoted = quoted_messages(messages, tokenizer_);
  std::string text;
  try {
    text = template_.render(quoted, render_);
  } catch (...) {
    wipe_messages(quoted);
    throw;
  }
  wipe_messages(quoted);
  privacy::WipeOnExit wipe_text(text);  // the rendered conversation
  // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
  const bool starts_with_bos = !render_.bos_token.empty() && std::string_view(text).starts_with(render_.bos_token);
  const bool add_special = !starts_with_bos && tokenizer_.add_bos();
  std::vector<Token> tokens = tokenizer_.encode_rendered(text, add_special);
  drop_final_eos(tokenizer_, add_special, tokens);
  return tokens;
}

std::vector<Token> text_prompt(const Tokenizer& tokenizer, const std::string& text) {
  const bool add_special = tokenizer.add_bos();
  std::vector<Token> tokens = tokenizer.encode(text, add_special, /*parse_special=*/false);
  drop_final_eos(tokenizer, add_special, tokens);
  return tokens;
}

}  // namespace a3s::power::runtime

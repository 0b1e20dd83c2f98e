#include "runtime/prompt_builder.h"

#include <string_view>

#include "privacy/wipe_text.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

std::vector<Token> encode(const Tokenizer& tokenizer, const std::string& text, bool want_bos, bool parse_special) {
  const bool add_special = want_bos && tokenizer.add_bos();
  std::vector<Token> tokens = tokenizer.encode(text, add_special, parse_special);
  // add_special may also append EOS (add_eos models); a prompt never ends with EOS.
  if (add_special && tokenizer.add_eos() && !tokens.empty() && tokens.back() == tokenizer.eos()) tokens.pop_back();
  return tokens;
}

}  // namespace

PromptBuilder::PromptBuilder(const Tokenizer& tokenizer, const chat::ChatTemplate& chat_template)
    : tokenizer_(tokenizer), template_(chat_template) {
  if (tokenizer_.bos() >= 0) render_.bos_token = tokenizer_.token_text(tokenizer_.bos());
  if (tokenizer_.eos() >= 0) render_.eos_token = tokenizer_.token_text(tokenizer_.eos());
  render_.add_generation_prompt = true;
}

std::vector<Token> PromptBuilder::chat(const chat::Messages& messages) const {
  std::string text = template_.render(messages, render_);
  privacy::WipeOnExit wipe_text(text);  // the rendered conversation
  // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
  const bool starts_with_bos = !render_.bos_token.empty() && std::string_view(text).starts_with(render_.bos_token);
  return encode(tokenizer_, text, /*want_bos=*/!starts_with_bos, /*parse_special=*/true);
}

std::vector<Token> text_prompt(const Tokenizer& tokenizer, const std::string& text) {
  return encode(tokenizer, text, /*want_bos=*/true, /*parse_special=*/false);
}

}  // namespace a3s::power::runtime

#include "runtime/prompt_builder.h"

#include <string_view>

#include "privacy/wipe_text.h"
#include "runtime/caller_text.h"
#include "tokenizer/quoted_text.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

// add_special may also append EOS (add_eos models); a prompt never ends with EOS.
void drop_final_eos(const Tokenizer& tokenizer, bool add_special, std::vector<Token>& tokens) {
  if (add_special && tokenizer.add_eos() && !tokens.empty() && tokens.back() == tokenizer.eos()) tokens.pop_back();
}

// The rendered text for encode_rendered(): caller spans through Tokenizer::quote, the template's own
// text with any literal quote mark doubled (so it stays a literal).
std::string quote_caller_spans(const chat::jinja::Rendered& rendered, const Tokenizer& tokenizer) {
  const std::string_view text = rendered.text;
  std::vector<std::string> parts;
  parts.reserve(2 * rendered.caller_spans.size() + 1);
  std::size_t at = 0;
  for (const auto& span : rendered.caller_spans) {
    parts.push_back(tok::quote_at(text.substr(at, span.begin - at), {}));
    parts.push_back(tokenizer.quote(text.substr(span.begin, span.end - span.begin)));
    at = span.end;
  }
  parts.push_back(tok::quote_at(text.substr(at), {}));
  std::size_t total = 0;
  for (const auto& p : parts) total += p.size();
  std::string out;
  out.reserve(total);  // one allocation: no unwiped copy left behind by growth
  for (auto& p : parts) {
    out += p;
    privacy::wipe_string(p);
  }
  return out;
}

// The rendered conversation, ready for encode_rendered(): only the template's markup may become
// control tokens.
std::string render_for_tokenizer(const chat::ChatTemplate& tmpl, const chat::Messages& messages,
                                 const chat::RenderOptions& opts, const Tokenizer& tokenizer) {
  if (auto rendered = tmpl.render_with_caller_spans(messages, opts)) {
    privacy::WipeOnExit wipe_rendered(rendered->text);
    return quote_caller_spans(*rendered, tokenizer);
  }
  // Built-in families: caller strings are quoted before rendering.
  chat::Messages quoted = quoted_messages(messages, tokenizer);
  chat::RenderOptions quoted_opts = opts;
  quoted_opts.tools = quoted_json(opts.tools, tokenizer);
  try {
    std::string text = tmpl.render(quoted, quoted_opts);
    wipe_messages(quoted);
    privacy::wipe_json(quoted_opts.tools);
    return text;
  } catch (...) {
    wipe_messages(quoted);
    privacy::wipe_json(quoted_opts.tools);
    throw;
  }
}

}  // namespace

PromptBuilder::PromptBuilder(const Tokenizer& tokenizer, const chat::ChatTemplate& chat_template)
    : tokenizer_(tokenizer), template_(chat_template) {
  if (tokenizer_.bos() >= 0) render_.bos_token = tokenizer_.token_text(tokenizer_.bos());
  if (tokenizer_.eos() >= 0) render_.eos_token = tokenizer_.token_text(tokenizer_.eos());
  render_.add_generation_prompt = true;
  // API clients send tool-call arguments as JSON text; each template gets them in the form it prints.
  render_.adapt_tool_call_arguments = true;
}

std::vector<Token> PromptBuilder::chat(const chat::Messages& messages, const ChatPromptOptions& options) const {
  chat::RenderOptions opts = render_;
  opts.template_kwargs = options.template_kwargs;
  opts.reasoning_effort = options.reasoning_effort;
  if (options.tools) opts.tools = *options.tools;
  struct WipeTools {
    nlohmann::ordered_json& tools;
    ~WipeTools() { privacy::wipe_json(tools); }
  } wipe_tools{opts.tools};
  std::string text = render_for_tokenizer(template_, messages, opts, tokenizer_);
  privacy::WipeOnExit wipe_text(text);  // the rendered conversation
  // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
  const bool starts_with_bos = !render_.bos_token.empty() && std::string_view(text).starts_with(render_.bos_token);
  const bool add_special = !starts_with_bos && tokenizer_.add_bos();
  std::vector<Token> tokens = tokenizer_.encode_rendered(text, add_special);
  drop_final_eos(tokenizer_, add_special, tokens);
  return tokens;
}

std::vector<Token> infill_prompt(const Tokenizer& tokenizer, const std::string& prefix, const std::string& suffix) {
  const Token pre = tokenizer.fim_prefix(), suf = tokenizer.fim_suffix(), mid = tokenizer.fim_middle();
  if (pre < 0 || suf < 0 || mid < 0) {
    throw chat::FieldError(codes::kUnsupportedField, "suffix",
                           "'suffix' needs a model with fill-in-the-middle tokens; this model has none");
  }
  std::vector<Token> tokens;
  if (tokenizer.add_bos() && tokenizer.bos() >= 0) tokens.push_back(tokenizer.bos());
  auto append = [&](const std::string& text) {
    std::vector<Token> part = tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/false);
    tokens.insert(tokens.end(), part.begin(), part.end());
    privacy::wipe_vector(part);
  };
  tokens.push_back(pre);
  append(prefix);
  tokens.push_back(suf);
  append(suffix);
  tokens.push_back(mid);
  return tokens;
}

std::vector<Token> text_prompt(const Tokenizer& tokenizer, const std::string& text) {
  const bool add_special = tokenizer.add_bos();
  std::vector<Token> tokens = tokenizer.encode(text, add_special, /*parse_special=*/false);
  drop_final_eos(tokenizer, add_special, tokens);
  return tokens;
}

}  // namespace a3s::power::runtime

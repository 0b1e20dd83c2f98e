// Tokenizer built from GGUF metadata (`tokenizer.ggml.*` keys, see ggml-org/ggml docs/gguf.md).
//
// Models: "llama" (SentencePiece-style BPE over scores, byte fallback `<0xNN>`) and "gpt2"
// (byte-level BPE with merges; pre-tokenizer regexes chosen by `tokenizer.ggml.pre`, PCRE2 UTF mode).
// An unknown model or `pre` name is a load error (Error "invalid_model"), never a silent fallback.
//
// Behaviour follows llama.cpp (src/llama-vocab.cpp) so that token ids match it exactly:
//  - defaults when the GGUF is silent: "llama" adds BOS (id 1), no EOS, adds a space prefix;
//    "gpt2" adds BOS only for the Llama 3 / Tekken families (see tokenizer/pre_tokenizer.h);
//  - user-defined tokens (token_type 4) are always recognised in the input; control and unknown
//    tokens only with parse_special;
//  - end-of-generation set: EOS, EOT, EOM, the FIM pad/repo/file-separator tokens, and every token
//    whose text marks a turn end ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>",
//    "<|endoftext|>", "<|eom_id|>", "<EOT>", ...); such tokens count as control tokens.
// All methods are const and safe to call from several threads at once.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power {

class Tokenizer {
 public:
  enum class Kind { SentencePiece, BytePairGpt2 };

  // Throws Error(codes::kInvalidModel) on missing/inconsistent tokenizer metadata (message names the
  // key). The returned tokenizer copies what it needs; `file` may be closed afterwards.
  static std::unique_ptr<Tokenizer> from_gguf(const gguf::File& file);
  virtual ~Tokenizer() = default;

  virtual Kind kind() const = 0;
  virtual int n_vocab() const = 0;

  // Text → token ids. add_special: prepend BOS / append EOS as the model's add_bos/add_eos flags
  // say. parse_special: recognise special/control token text (e.g. "<|im_start|>") in the input.
  // Any bytes are accepted (malformed UTF-8 is tokenized as U+FFFD per bad byte by "gpt2" models and
  // as byte tokens by "llama" models). Throws Error(codes::kInvalidArgument) above 256 MiB of text.
  virtual std::vector<Token> encode(std::string_view text, bool add_special, bool parse_special) const = 0;

  // Caller text (message content, names, tool results) to be placed in a template-rendered prompt:
  // `text` with a quote mark wherever a control or unknown token's text begins
  // (tokenizer/quoted_text.h), so that encode_rendered() spells it out. Text without such places
  // comes back unchanged (apart from a literal U+FDD0, which is doubled).
  virtual std::string quote(std::string_view text) const = 0;
  // A rendered prompt whose caller parts went through quote(): the marks are removed from `text` in
  // place (it keeps the unmarked prompt, for the caller to wipe), then it is encoded as encode(text,
  // add_special, parse_special = true) does, except that no control or unknown token begins where a
  // mark was. Same limits and errors as encode().
  virtual std::vector<Token> encode_rendered(std::string& text, bool add_special) const = 0;

  // The raw bytes a token stands for (byte-fallback tokens give their byte; SentencePiece "▁" → " ").
  // Control/special tokens give "" unless `special` is true (then their text).
  // Throws Error(codes::kInvalidArgument) for an id outside [0, n_vocab()).
  virtual std::string token_to_piece(Token t, bool special = false) const = 0;
  // Concatenated pieces of a token sequence (may contain partial UTF-8 at the end).
  std::string decode(std::span<const Token> tokens, bool special = false) const;

  virtual const std::string& token_text(Token t) const = 0;  // vocabulary entry as stored

  virtual Token bos() const = 0;  // -1 when the model has none
  virtual Token eos() const = 0;  // -1 when the model has none
  virtual bool add_bos() const = 0;
  virtual bool add_eos() const = 0;
  // End-of-generation tokens: EOS, EOT, EOM and every other token the GGUF declares as ending a turn.
  virtual bool is_eog(Token t) const = 0;
  virtual const std::vector<Token>& eog_tokens() const = 0;
  virtual bool is_control(Token t) const = 0;
  // Fill-in-the-middle tokens (tokenizer.ggml.fim_{pre,suf,mid}_token_id, or recognised by their
  // text as llama.cpp does): -1 when the model has none.
  virtual Token fim_prefix() const = 0;
  virtual Token fim_suffix() const = 0;
  virtual Token fim_middle() const = 0;
};

// Turns a token stream into text without ever emitting a partial UTF-8 sequence: bytes of an
// incomplete code point are held back until the code point completes (or `flush()` is called, which
// emits them as U+FFFD).
class StreamingDetokenizer {
 public:
  // special: control tokens give their text (Tokenizer::token_to_piece's `special`), as tool-call
  // parsing needs; otherwise they give nothing.
  explicit StreamingDetokenizer(const Tokenizer& tok, bool special = false) : tok_(tok), special_(special) {}
  std::string push(Token t);  // complete UTF-8 text that this token finished (may be empty)
  std::string flush();        // whatever is held back, invalid bytes replaced by U+FFFD
  void reset() { pending_.clear(); }

 private:
  const Tokenizer& tok_;
  bool special_;
  std::string pending_;
};

}  // namespace a3s::power

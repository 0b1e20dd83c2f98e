// Pre-tokenizer of byte-level BPE models: splits text into words with the regular expressions a
// vocabulary's `tokenizer.ggml.pre` names, before BPE merges run inside each word.
//
// Expression sets per pre-tokenizer name follow llama.cpp `src/llama-vocab.cpp`
// (llm_tokenizer_bpe); they are applied one after another, each splitting every piece the previous
// ones produced. Text that no expression matches stays a piece of its own. Matching uses PCRE2 in
// UTF + UCP mode over code points; like the reference implementation, non-ASCII white space is
// presented to the expressions as U+000B so that literal characters in a class never match it.
// English contractions are matched caselessly as tokenizer.json writes them, (?i:'s|...), where
// llama.cpp spells out '[sS]|...: the two differ on "'\u017F" (long s), a contraction here as in the
// Hugging Face and tiktoken tokenizers.
//
// Names are matched exactly; an unknown name is a load error (Error "invalid_model",
// "unknown pre-tokenizer '<name>'"), never a silent fallback.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::tok {

struct PreTokenizerSpec {
  std::string name;                  // canonical set name, e.g. "llama3"
  std::vector<std::string> regexes;  // PCRE2 syntax
  bool ignore_merges = false;        // a word that is itself a token is emitted without merging
  bool add_bos = false;              // default for tokenizer.ggml.add_bos_token
  bool has_bos = true;               // false when the model family has no BOS token at all
};

// The spec for a `tokenizer.ggml.pre` value ("" = absent → "default").
// Throws Error(codes::kInvalidModel) for an unknown name.
const PreTokenizerSpec& pre_tokenizer_spec(std::string_view pre);

// Every accepted `tokenizer.ggml.pre` value.
std::vector<std::string> known_pre_tokenizers();

class PreTokenizer {
 public:
  // Compiles the expressions. Throws Error(codes::kInvalidModel) when one does not compile.
  explicit PreTokenizer(const PreTokenizerSpec& spec);
  ~PreTokenizer();
  PreTokenizer(const PreTokenizer&) = delete;
  PreTokenizer& operator=(const PreTokenizer&) = delete;

  // Splits `text` (any bytes; malformed UTF-8 decodes to U+FFFD per byte) into words, returned as
  // UTF-8. Thread-safe. Linear in the text size for the shipped expression sets.
  std::vector<std::string> split(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace a3s::power::tok

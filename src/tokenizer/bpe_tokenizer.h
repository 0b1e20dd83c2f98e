// Byte-level BPE tokenizer (`tokenizer.ggml.model` = "gpt2").
//
// Semantics of llama.cpp `llm_tokenizer_bpe`:
//  - the pre-tokenizer (expressions chosen by `tokenizer.ggml.pre`, see pre_tokenizer.h) splits
//    the text into words; each word's bytes are written in the GPT-2 byte-level alphabet
//    (byte_encoding.h);
//  - with ignore_merges (Llama 3 family) a word that is itself a vocabulary entry is one token;
//  - otherwise the word starts as one symbol per character and the adjacent pair with the lowest
//    merge rank (`tokenizer.ggml.merges`, "left right", rank = index) is merged first (ties:
//    leftmost), repeatedly;
//  - each final symbol is looked up in the vocabulary; a symbol that is not an entry falls back to
//    the entries of its single bytes, if any.
#pragma once

#include <memory>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/vocab_tokenizer.h"

namespace a3s::power::tok {

class BpeTokenizer final : public VocabTokenizer {
 public:
  // `merges`: the GGUF merges list. Throws Error(codes::kInvalidModel) for an unknown pre-tokenizer.
  BpeTokenizer(Vocab vocab, const PreTokenizerSpec& pre, const std::vector<std::string_view>& merges);
  Kind kind() const override { return Kind::BytePairGpt2; }

  const PreTokenizerSpec& pre_tokenizer() const { return pre_spec_; }

 protected:
  void encode_text(std::string_view text, bool after_special, std::vector<Token>& out) const override;
  std::string normal_piece(Token t) const override;

 private:
  void encode_word(std::string_view word, std::vector<Token>& out) const;
  int rank(std::string_view left, std::string_view right, std::string& key) const;

  PreTokenizerSpec pre_spec_;
  PreTokenizer pre_;
  StringIndex ranks_;  // "left\xFFright" → merge rank (0xFF never occurs in UTF-8)
};

}  // namespace a3s::power::tok

// SentencePiece-style tokenizer (`tokenizer.ggml.model` = "llama").
//
// Semantics of llama.cpp `llm_tokenizer_spm` (itself SentencePiece's BPE-by-score):
//  - spaces are escaped to U+2581 "▁"; with add_space_prefix (default on) a "▁" is prepended to the
//    first run of text and to every run that follows a special token;
//  - the text starts as one symbol per UTF-8 character; the adjacent pair whose concatenation is a
//    vocabulary entry with the highest score is merged first (ties: leftmost), repeatedly;
//  - a final symbol that is not a vocabulary entry is emitted byte by byte as byte-fallback tokens
//    "<0xNN>" (or the single-byte token, or the unknown token when neither exists).
// O(n log n) in the text length.
#pragma once

#include <array>

#include "tokenizer/vocab_tokenizer.h"

namespace a3s::power::tok {

class SpmTokenizer final : public VocabTokenizer {
 public:
  explicit SpmTokenizer(Vocab vocab);
  Kind kind() const override { return Kind::SentencePiece; }

 protected:
  void encode_text(std::string_view text, bool after_special, std::vector<Token>& out) const override;
  std::string normal_piece(Token t) const override;

 private:
  std::array<Token, 256> byte_token_{};  // byte-fallback token per byte value (-1: none)
};

}  // namespace a3s::power::tok

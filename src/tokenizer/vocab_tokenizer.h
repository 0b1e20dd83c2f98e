// Common part of the GGUF tokenizers: vocabulary queries, special-token partitioning, BOS/EOS
// insertion and token → piece rules. Models supply the encoding of raw text and the spelling of
// normal tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab.h"

namespace a3s::power::tok {

class VocabTokenizer : public Tokenizer {
 public:
  explicit VocabTokenizer(Vocab vocab);

  int n_vocab() const override { return vocab_.n_tokens(); }
  std::vector<Token> encode(std::string_view text, bool add_special, bool parse_special) const override;
  std::string quote(std::string_view text) const override;
  std::vector<Token> encode_rendered(std::string& text, bool add_special) const override;
  std::string token_to_piece(Token t, bool special = false) const override;
  const std::string& token_text(Token t) const override;

  Token bos() const override { return vocab_.bos; }
  Token eos() const override { return vocab_.eos; }
  bool add_bos() const override { return vocab_.add_bos; }
  bool add_eos() const override { return vocab_.add_eos; }
  bool is_eog(Token t) const override { return vocab_.valid(t) && vocab_.eog_mask[t] != 0; }
  const std::vector<Token>& eog_tokens() const override { return vocab_.eog; }
  bool is_control(Token t) const override { return vocab_.has_attr(t, kAttrControl); }
  Token fim_prefix() const override { return vocab_.fim_pre; }
  Token fim_suffix() const override { return vocab_.fim_suf; }
  Token fim_middle() const override { return vocab_.fim_mid; }

  const Vocab& vocab() const { return vocab_; }

 protected:
  // Appends the tokens of one run of raw text (no special tokens inside). `after_special` is true
  // for the first run of the input and for runs that follow a special token.
  virtual void encode_text(std::string_view text, bool after_special, std::vector<Token>& out) const = 0;
  // The bytes a normal token stands for.
  virtual std::string normal_piece(Token t) const = 0;

  // Appends the token of `piece`, the result of a merge; a piece that is not in the vocabulary
  // becomes one token per byte, `byte_token(byte)`, leaving out the bytes for which it is negative.
  template <class ByteToken>
  void push_piece(std::string_view piece, ByteToken&& byte_token, std::vector<Token>& out) const {
    const Token t = vocab_.find(piece);
    if (t >= 0) {
      out.push_back(t);
      return;
    }
    for (const char c : piece) {
      const Token bt = byte_token(c);
      if (bt >= 0) out.push_back(bt);
    }
  }

 private:
  std::vector<Token> encode_fragments(std::string_view text, bool add_special, bool parse_special,
                                      std::span<const size_t> quoted) const;

  Vocab vocab_;
  SpecialTokenMatcher specials_;
};

}  // namespace a3s::power::tok

#include "tokenizer/vocab_tokenizer.h"

#include <limits>
#include <utility>

#include "a3s/power/error.h"
#include "tokenizer/quoted_text.h"

namespace a3s::power::tok {

namespace {
// Largest input accepted by encode (keeps every internal offset within 32 bits).
constexpr size_t kMaxTextBytes = size_t{1} << 28;
}  // namespace

VocabTokenizer::VocabTokenizer(Vocab vocab) : vocab_(std::move(vocab)), specials_(vocab_) {}

std::vector<Token> VocabTokenizer::encode(std::string_view text, bool add_special, bool parse_special) const {
  return encode_fragments(text, add_special, parse_special, {});
}

std::string VocabTokenizer::quote(std::string_view text) const {
  if (text.size() > kMaxTextBytes) {
    throw Error(codes::kInvalidArgument, "text too long to tokenize (" + std::to_string(text.size()) + " bytes)");
  }
  const std::vector<size_t> starts = specials_.control_starts(text);
  return quote_at(text, starts);
}

std::vector<Token> VocabTokenizer::encode_rendered(std::string& text, bool add_special) const {
  const std::vector<size_t> quoted = unquote_in_place(text);
  return encode_fragments(text, add_special, /*parse_special=*/true, quoted);
}

std::vector<Token> VocabTokenizer::encode_fragments(std::string_view text, bool add_special, bool parse_special,
                                                    std::span<const size_t> quoted) const {
  if (text.size() > kMaxTextBytes) {
    throw Error(codes::kInvalidArgument, "text too long to tokenize (" + std::to_string(text.size()) + " bytes)");
  }
  std::vector<Token> out;
  out.reserve(text.size() / 3 + 4);
  if (add_special && vocab_.add_bos) out.push_back(vocab_.bos);
  bool after_special = true;
  for (const Fragment& f : specials_.partition(text, parse_special, quoted)) {
    if (f.token >= 0) {
      out.push_back(f.token);
      after_special = true;
    } else {
      encode_text(text.substr(f.offset, f.length), after_special, out);
      after_special = false;
    }
  }
  if (add_special && vocab_.add_eos) out.push_back(vocab_.eos);
  return out;
}

std::string VocabTokenizer::token_to_piece(Token t, bool special) const {
  if (!vocab_.valid(t)) {
    throw Error(codes::kInvalidArgument, "token id " + std::to_string(t) + " is outside the vocabulary (size " +
                                             std::to_string(vocab_.n_tokens()) + ")");
  }
  const uint16_t a = vocab_.attr[t];
  if (a & (kAttrControl | kAttrUnknown)) return special ? vocab_.text[t] : std::string();
  if (a & kAttrUserDefined) return vocab_.text[t];
  if (a & kAttrNormal) return normal_piece(t);
  if (a & kAttrByte) {
    const int b = parse_byte_token(vocab_.text[t]);
    return b < 0 ? std::string() : std::string(1, static_cast<char>(b));
  }
  return {};  // unused / undefined tokens have no text
}

const std::string& VocabTokenizer::token_text(Token t) const {
  if (!vocab_.valid(t)) {
    throw Error(codes::kInvalidArgument, "token id " + std::to_string(t) + " is outside the vocabulary (size " +
                                             std::to_string(vocab_.n_tokens()) + ")");
  }
  return vocab_.text[t];
}

}  // namespace a3s::power::tok

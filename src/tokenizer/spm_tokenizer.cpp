#include "tokenizer/spm_tokenizer.h"

#include <optional>
#include <utility>

#include "tokenizer/pair_merge.h"

namespace a3s::power::tok {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581

}  // namespace

SpmTokenizer::SpmTokenizer(Vocab vocab) : VocabTokenizer(std::move(vocab)) {
  const Vocab& v = this->vocab();
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    const char spelled[6] = {'<', '0', 'x', kHex[b >> 4], kHex[b & 15], '>'};
    Token t = v.find(std::string_view(spelled, 6));
    if (t < 0) t = v.find(std::string_view(std::string(1, static_cast<char>(b))));
    byte_token_[b] = t;
  }
}

void SpmTokenizer::encode_text(std::string_view raw, bool after_special, std::vector<Token>& out) const {
  const Vocab& v = vocab();
  std::string text;
  text.reserve(raw.size() + 8);
  if (v.add_space_prefix && after_special) text += kSpaceMark;
  for (char c : raw) {
    if (c == ' ') {
      text += kSpaceMark;
    } else {
      text.push_back(c);
    }
  }
  merge_adjacent_pieces(
      text,
      [&](std::string_view left, std::string_view right) -> std::optional<float> {
        const Token t = v.find(std::string_view(left.data(), left.size() + right.size()));
        if (t < 0) return std::nullopt;
        return -v.score[t];  // the highest score merges first
      },
      [&](std::string_view piece) {
        // A byte without a <0xXX> token becomes <unk>, when the vocabulary has one.
        push_piece(
            piece,
            [&](char c) {
              const Token bt = byte_token_[static_cast<uint8_t>(c)];
              return bt >= 0 ? bt : v.unk;
            },
            out);
      });
}

std::string SpmTokenizer::normal_piece(Token t) const {
  const std::string& s = vocab().text[t];
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, kSpaceMark.size(), kSpaceMark) == 0) {
      out.push_back(' ');
      i += kSpaceMark.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

}  // namespace a3s::power::tok

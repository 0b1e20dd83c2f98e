#include "tokenizer/bpe_tokenizer.h"

#include <optional>
#include <utility>

#include "tokenizer/byte_encoding.h"
#include "tokenizer/pair_merge.h"

namespace a3s::power::tok {
namespace {

constexpr char kPairSeparator = '\xFF';

}  // namespace

BpeTokenizer::BpeTokenizer(Vocab vocab, const PreTokenizerSpec& pre, const std::vector<std::string_view>& merges)
    : VocabTokenizer(std::move(vocab)), pre_spec_(pre), pre_(pre) {
  ranks_.reserve(merges.size());
  std::string key;
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string_view m = merges[i];
    // Split at the first space after the first byte (a merge's left side may itself be " ").
    const size_t sp = m.size() > 1 ? m.find(' ', 1) : std::string_view::npos;
    key.clear();
    if (sp != std::string_view::npos) {
      key.append(m.substr(0, sp));
      key.push_back(kPairSeparator);
      key.append(m.substr(sp + 1));
    } else {
      key.push_back(kPairSeparator);  // malformed entry: never matches a real pair
    }
    ranks_.emplace(key, static_cast<int32_t>(i));  // the first occurrence of a pair wins
  }
}

int BpeTokenizer::rank(std::string_view left, std::string_view right, std::string& key) const {
  key.assign(left);
  key.push_back(kPairSeparator);
  key.append(right);
  auto it = ranks_.find(std::string_view(key));
  return it == ranks_.end() ? -1 : it->second;
}

void BpeTokenizer::encode_text(std::string_view text, bool /*after_special*/, std::vector<Token>& out) const {
  for (const std::string& word : pre_.split(text)) encode_word(byte_encode(word), out);
}

void BpeTokenizer::encode_word(std::string_view word, std::vector<Token>& out) const {
  const Vocab& v = vocab();
  if (word.empty()) return;
  if (pre_spec_.ignore_merges) {
    const Token t = v.find(word);
    if (t >= 0) {
      out.push_back(t);
      return;
    }
  }

  std::string key;
  merge_adjacent_pieces(
      word,
      [&](std::string_view left, std::string_view right) -> std::optional<int> {
        const int rk = rank(left, right, key);
        return rk < 0 ? std::nullopt : std::optional<int>(rk);
      },
      [&](std::string_view piece) {
        push_piece(piece, [&](const char& c) { return v.find(std::string_view(&c, 1)); }, out);
      });
}

std::string BpeTokenizer::normal_piece(Token t) const { return byte_decode(vocab().text[t]); }

}  // namespace a3s::power::tok

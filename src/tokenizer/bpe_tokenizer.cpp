#include "tokenizer/bpe_tokenizer.h"

#include <queue>
#include <utility>

#include "tokenizer/byte_encoding.h"
#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace {

constexpr char kPairSeparator = '\xFF';

struct Symbol {
  int prev;
  int next;
  uint32_t offset;  // into the encoded word
  uint32_t size;    // bytes; 0 once merged into its left neighbour
};

struct Bigram {
  int left;
  int right;
  int rank;
  uint32_t left_size;
  uint32_t right_size;
};

// Lowest rank first; among equal ranks the leftmost pair.
struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

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

  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  for (size_t off = 0; off < word.size();) {
    const size_t len = std::min(utf8_sequence_length(static_cast<uint8_t>(word[off])), word.size() - off);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, off + len == word.size() ? -1 : index + 1, static_cast<uint32_t>(off),
                       static_cast<uint32_t>(len)});
    off += len;
  }

  std::string key;
  std::vector<Bigram> storage;
  storage.reserve(symbols.size());
  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue(BigramOrder{}, std::move(storage));
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols[left];
    const Symbol& r = symbols[right];
    const int rk = rank(word.substr(l.offset, l.size), word.substr(r.offset, r.size), key);
    if (rk < 0) return;
    queue.push({left, right, rk, l.size, r.size});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& left = symbols[b.left];
    Symbol& right = symbols[b.right];
    // Stale: either side changed since the pair was queued.
    if (left.size == 0 || right.size == 0 || left.size != b.left_size || right.size != b.right_size) continue;
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = b.left;
    try_add(left.prev, b.left);
    try_add(b.left, left.next);
  }

  for (int i = 0; i != -1; i = symbols[i].next) {
    const Symbol& s = symbols[i];
    const std::string_view piece = word.substr(s.offset, s.size);
    const Token t = v.find(piece);
    if (t >= 0) {
      out.push_back(t);
      continue;
    }
    for (char c : piece) {
      const Token bt = v.find(std::string_view(&c, 1));
      if (bt >= 0) out.push_back(bt);
    }
  }
}

std::string BpeTokenizer::normal_piece(Token t) const { return byte_decode(vocab().text[t]); }

}  // namespace a3s::power::tok

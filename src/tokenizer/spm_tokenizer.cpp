#include "tokenizer/spm_tokenizer.h"

#include <queue>
#include <utility>

#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581

struct Symbol {
  int prev;
  int next;
  uint32_t offset;  // into the escaped text
  uint32_t size;    // bytes; 0 once merged into its left neighbour
};

struct Bigram {
  int left;
  int right;
  float score;
  uint32_t size;
};

// Highest score first; among equal scores the leftmost pair.
struct BigramOrder {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

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
  if (text.empty()) return;

  std::vector<Symbol> symbols;
  symbols.reserve(text.size());
  for (size_t off = 0; off < text.size();) {
    const size_t len = std::min(utf8_sequence_length(static_cast<uint8_t>(text[off])), text.size() - off);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({index - 1, off + len == text.size() ? -1 : index + 1, static_cast<uint32_t>(off),
                       static_cast<uint32_t>(len)});
    off += len;
  }

  std::vector<Bigram> storage;
  storage.reserve(symbols.size());
  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue(BigramOrder{}, std::move(storage));
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const uint32_t size = symbols[left].size + symbols[right].size;
    const Token t = v.find(std::string_view(text).substr(symbols[left].offset, size));
    if (t < 0) return;
    queue.push({left, right, v.score[t], size});
  };
  for (int i = 1; i < static_cast<int>(symbols.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& left = symbols[b.left];
    Symbol& right = symbols[b.right];
    // Stale: one side already merged elsewhere.
    if (left.size == 0 || right.size == 0 || left.size + right.size != b.size) continue;
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = b.left;
    try_add(left.prev, b.left);
    try_add(b.left, left.next);
  }

  for (int i = 0; i != -1; i = symbols[i].next) {
    const Symbol& s = symbols[i];
    const std::string_view piece = std::string_view(text).substr(s.offset, s.size);
    const Token t = v.find(piece);
    if (t >= 0) {
      out.push_back(t);
      continue;
    }
    for (char c : piece) {
      const Token bt = byte_token_[static_cast<uint8_t>(c)];
      if (bt >= 0) {
        out.push_back(bt);
      } else if (v.unk >= 0) {
        out.push_back(v.unk);
      }
    }
  }
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

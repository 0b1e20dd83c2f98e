// The merge loop that SentencePiece ("llama") and byte-level BPE ("gpt2") tokenization share, as
// llama.cpp's tokenizers run it.
//
// The text starts as one piece per UTF-8 sequence (utf8_sequence_length; a malformed lead byte stands
// alone, a sequence cut by the end of the text is shortened). Then, repeatedly, of all adjacent pairs of
// pieces that have a rank the one with the lowest rank is merged into one piece (equal ranks: the
// leftmost pair), until no adjacent pair has a rank. The tokenizers differ only in the rank: BPE takes
// the position of the pair in the merges list, SentencePiece the score of the merged piece, negated
// (the highest score merges first).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace pair_merge_detail {

struct Piece {
  int prev;
  int next;
  uint32_t offset;  // into the text
  uint32_t size;    // bytes; 0 once merged into its left neighbour
};

template <class Rank>
struct Pair {
  int left;
  int right;
  Rank rank;
  uint32_t left_size;  // the sizes when the pair was queued: a pair whose sides grew since is stale
  uint32_t right_size;
};

// std::priority_queue keeps the greatest element on top: "greater" here is the lower rank, and
// among equal ranks the pair further left.
template <class Rank>
struct LowerRankFirst {
  bool operator()(const Pair<Rank>& a, const Pair<Rank>& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

}  // namespace pair_merge_detail

// Merges the pieces of `text` as described above. `rank(left, right)` returns a std::optional of an
// ordered type, std::nullopt for a pair that never merges; `left` and `right` are adjacent in `text`
// (right begins where left ends). `emit(piece)` then receives the final pieces, left to right. An
// empty text emits nothing.
template <class RankFn, class EmitFn>
void merge_adjacent_pieces(std::string_view text, RankFn&& rank, EmitFn&& emit) {
  using pair_merge_detail::Pair;
  using pair_merge_detail::Piece;
  using Rank = typename std::invoke_result_t<RankFn&, std::string_view, std::string_view>::value_type;
  if (text.empty()) return;

  std::vector<Piece> pieces;
  pieces.reserve(text.size());
  for (size_t off = 0; off < text.size();) {
    const size_t len = std::min(utf8_sequence_length(static_cast<uint8_t>(text[off])), text.size() - off);
    const int index = static_cast<int>(pieces.size());
    pieces.push_back({index - 1, off + len == text.size() ? -1 : index + 1, static_cast<uint32_t>(off),
                      static_cast<uint32_t>(len)});
    off += len;
  }

  std::vector<Pair<Rank>> storage;
  storage.reserve(pieces.size());
  std::priority_queue<Pair<Rank>, std::vector<Pair<Rank>>, pair_merge_detail::LowerRankFirst<Rank>> queue(
      pair_merge_detail::LowerRankFirst<Rank>{}, std::move(storage));
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const Piece& l = pieces[left];
    const Piece& r = pieces[right];
    const std::optional<Rank> rk = rank(text.substr(l.offset, l.size), text.substr(r.offset, r.size));
    if (!rk) return;
    queue.push({left, right, *rk, l.size, r.size});
  };
  for (int i = 1; i < static_cast<int>(pieces.size()); ++i) try_add(i - 1, i);

  while (!queue.empty()) {
    const Pair<Rank> p = queue.top();
    queue.pop();
    Piece& left = pieces[p.left];
    Piece& right = pieces[p.right];
    // Stale: either side changed since the pair was queued (sizes only grow, or drop to 0 when merged).
    if (left.size == 0 || right.size == 0 || left.size != p.left_size || right.size != p.right_size) continue;
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) pieces[right.next].prev = p.left;
    try_add(left.prev, p.left);
    try_add(p.left, left.next);
  }

  for (int i = 0; i != -1; i = pieces[i].next) emit(text.substr(pieces[i].offset, pieces[i].size));
}

}  // namespace a3s::power::tok

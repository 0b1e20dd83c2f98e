#include "tokenizer/special_tokens.h"

#include <algorithm>

namespace a3s::power::tok {

SpecialTokenMatcher::SpecialTokenMatcher(const Vocab& vocab) {
  for (Token t = 0; t < vocab.n_tokens(); ++t) {
    if (vocab.attr[t] & (kAttrControl | kAttrUserDefined | kAttrUnknown)) ranked_.push_back(t);
  }
  std::stable_sort(ranked_.begin(), ranked_.end(),
                   [&](Token a, Token b) { return vocab.text[a].size() > vocab.text[b].size(); });
  nodes_.emplace_back();
  always_.resize(ranked_.size());
  for (size_t r = 0; r < ranked_.size(); ++r) {
    const Token t = ranked_[r];
    length_.push_back(static_cast<uint32_t>(vocab.text[t].size()));
    // Control/unknown status wins over user-defined for tokens that carry both.
    always_[r] = (vocab.attr[t] & (kAttrControl | kAttrUnknown)) == 0;
    any_always_ = any_always_ || always_[r];
    int32_t node = 0;
    for (char c : vocab.text[t]) {
      const uint64_t key = (uint64_t(node) << 8) | uint8_t(c);
      auto it = edges_.find(key);
      if (it == edges_.end()) {
        it = edges_.emplace(key, static_cast<int32_t>(nodes_.size())).first;
        nodes_.emplace_back();
      }
      node = it->second;
    }
    // Texts are unique in a vocabulary, so each node ends at most one token.
    nodes_[node].terminal = static_cast<int32_t>(r);
  }
}

int32_t SpecialTokenMatcher::child(int32_t node, uint8_t byte) const {
  auto it = edges_.find((uint64_t(node) << 8) | byte);
  return it == edges_.end() ? -1 : it->second;
}

std::vector<size_t> SpecialTokenMatcher::control_starts(std::string_view text) const {
  std::vector<size_t> out;
  if (ranked_.empty()) return out;
  for (size_t i = 0; i < text.size(); ++i) {
    int32_t node = 0;
    for (size_t j = i; j < text.size(); ++j) {
      node = child(node, static_cast<uint8_t>(text[j]));
      if (node < 0) break;
      const int32_t r = nodes_[node].terminal;
      if (r >= 0 && !always_[r]) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

std::vector<Fragment> SpecialTokenMatcher::partition(std::string_view text, bool parse_special,
                                                     std::span<const size_t> quoted) const {
  std::vector<Fragment> out;
  if (text.empty()) return out;
  if (ranked_.empty() || (!parse_special && !any_always_)) {
    out.push_back({-1, 0, text.size()});
    return out;
  }

  // Every occurrence of every eligible special text: (rank, position).
  std::vector<std::pair<int32_t, uint32_t>> hits;
  size_t next_quoted = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    while (next_quoted < quoted.size() && quoted[next_quoted] < i) ++next_quoted;
    const bool is_quoted = next_quoted < quoted.size() && quoted[next_quoted] == i;
    int32_t node = 0;
    for (size_t j = i; j < text.size(); ++j) {
      node = child(node, static_cast<uint8_t>(text[j]));
      if (node < 0) break;
      const int32_t r = nodes_[node].terminal;
      if (r >= 0 && (always_[r] || (parse_special && !is_quoted))) hits.emplace_back(r, static_cast<uint32_t>(i));
    }
  }
  if (hits.empty()) {
    out.push_back({-1, 0, text.size()});
    return out;
  }
  std::sort(hits.begin(), hits.end());

  // Carve in priority order; an occurrence must lie entirely in text not yet carved.
  std::vector<uint8_t> carved(text.size(), 0);
  std::vector<std::pair<uint32_t, int32_t>> taken;  // (position, rank)
  for (const auto& [r, pos] : hits) {
    const uint32_t len = length_[r];
    if (std::any_of(carved.begin() + pos, carved.begin() + pos + len, [](uint8_t c) { return c != 0; })) continue;
    std::fill(carved.begin() + pos, carved.begin() + pos + len, uint8_t{1});
    taken.emplace_back(pos, r);
  }
  std::sort(taken.begin(), taken.end());

  size_t cursor = 0;
  for (const auto& [pos, r] : taken) {
    if (pos > cursor) out.push_back({-1, cursor, pos - cursor});
    out.push_back({ranked_[r], pos, length_[r]});
    cursor = pos + length_[r];
  }
  if (cursor < text.size()) out.push_back({-1, cursor, text.size() - cursor});
  return out;
}

}  // namespace a3s::power::tok

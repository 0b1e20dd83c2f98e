#include "grammar/token_mask.h"

#include <algorithm>
#include <numeric>

#include "a3s/power/error.h"
#include "grammar/stack_states.h"

namespace a3s::power::grammar {

TokenTrie::TokenTrie(const std::vector<std::string>& token_bytes)
    : TokenTrie(token_bytes, std::vector<uint8_t>(token_bytes.size(), 0)) {}

TokenTrie::TokenTrie(const std::vector<std::string>& token_bytes, const std::vector<uint8_t>& excluded) {
  if (excluded.size() != token_bytes.size()) {
    throw Error(codes::kInvalidArgument,
                "grammar: the excluded-token flags (" + std::to_string(excluded.size()) +
                    ") do not match the vocabulary (" + std::to_string(token_bytes.size()) + " tokens)");
  }
  token_count_ = token_bytes.size();
  std::vector<uint32_t> order;
  order.reserve(token_bytes.size());
  for (uint32_t id = 0; id < token_bytes.size(); ++id) {
    if (!token_bytes[id].empty() && !excluded[id]) order.push_back(id);
  }
  // Byte order (std::string compares as unsigned char), so a prefix comes before its extensions.
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return token_bytes[a] < token_bytes[b]; });

  label_.push_back(0);
  depth_.push_back(0);
  end_.push_back(0);
  std::vector<uint32_t> token_node;  // per entry of ids_, its node (nondecreasing)
  std::vector<uint32_t> path{0};     // path[d]: the node of the previous token's prefix of length d
  const std::string* prev = nullptr;
  for (uint32_t id : order) {
    const std::string& s = token_bytes[id];
    size_t common = 0;
    if (prev) {
      const size_t limit = std::min(prev->size(), s.size());
      while (common < limit && (*prev)[common] == s[common]) ++common;
    }
    while (path.size() - 1 > common) {
      end_[path.back()] = static_cast<uint32_t>(label_.size());
      path.pop_back();
    }
    for (size_t d = common; d < s.size(); ++d) {
      path.push_back(static_cast<uint32_t>(label_.size()));
      label_.push_back(static_cast<uint8_t>(s[d]));
      depth_.push_back(static_cast<uint32_t>(d + 1));
      end_.push_back(0);
    }
    ids_.push_back(id);
    token_node.push_back(path.back());
    max_depth_ = std::max(max_depth_, s.size());
    prev = &s;
  }
  while (!path.empty()) {
    end_[path.back()] = static_cast<uint32_t>(label_.size());
    path.pop_back();
  }
  first_token_.assign(label_.size() + 1, 0);
  for (uint32_t node : token_node) ++first_token_[node + 1];
  std::partial_sum(first_token_.begin(), first_token_.end(), first_token_.begin());
}

void allowed_tokens(const Matcher& m, const TokenTrie& trie, std::vector<uint8_t>& allowed) {
  allowed.assign(trie.token_count_, 0);
  detail::StackStates& states = *m.states_;
  m.current_ = states.trim(m.current_);
  std::vector<detail::StateId> at_depth(trie.max_depth_ + 1);
  at_depth[0] = m.current_;
  const size_t n = trie.label_.size();
  size_t i = 1;
  while (i < n) {
    const uint32_t d = trie.depth_[i];
    const detail::StateId next = states.step(at_depth[d - 1], trie.label_[i]);
    if (next == detail::kDeadState) {
      i = trie.end_[i];
      continue;
    }
    at_depth[d] = next;
    for (uint32_t k = trie.first_token_[i]; k < trie.first_token_[i + 1]; ++k) allowed[trie.ids_[k]] = 1;
    ++i;
  }
}

}  // namespace a3s::power::grammar

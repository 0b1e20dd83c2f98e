// Which tokens of a vocabulary a grammar allows next: the mask applied to the logits before sampling.
//
// TokenTrie is built once per vocabulary from each token id's bytes (what the token adds to the
// output, UTF-8 or a piece of it). A token with an empty byte string, or flagged as excluded (a
// control or special token that a grammar must never produce), is never allowed. The trie is
// immutable after construction and may be shared between threads and matchers.
//
// allowed_tokens walks the trie depth first carrying the matcher's state, one cached transition per
// trie edge (matcher.h), and skips a whole subtree as soon as no parse stack survives its prefix:
// tokens sharing a prefix are checked once for it. It allocates only a buffer of the trie's depth
// and `allowed` itself (which keeps its capacity between calls). Measured cost: docs/grammar.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grammar/matcher.h"

namespace a3s::power::grammar {

class TokenTrie {
 public:
  // token_bytes[id] is the byte string of token id; ids are 0 .. token_bytes.size() - 1.
  explicit TokenTrie(const std::vector<std::string>& token_bytes);
  // The same, leaving out every id whose excluded[id] is non-zero. Throws
  // Error(codes::kInvalidArgument) when the two sizes differ.
  TokenTrie(const std::vector<std::string>& token_bytes, const std::vector<uint8_t>& excluded);

  // token_bytes.size() at construction: the size allowed_tokens gives its mask.
  size_t token_count() const { return token_count_; }
  // Trie nodes, the root included (one per distinct prefix of the tokens kept).
  size_t node_count() const { return label_.size(); }
  // The longest token kept, in bytes.
  size_t max_depth() const { return max_depth_; }

 private:
  friend void allowed_tokens(const Matcher& m, const TokenTrie& trie, std::vector<uint8_t>& allowed);

  // Nodes in depth-first preorder, children by increasing byte; node 0 is the root (empty prefix).
  size_t token_count_ = 0;
  size_t max_depth_ = 0;
  std::vector<uint8_t> label_;         // the byte on the edge into the node
  std::vector<uint32_t> depth_;        // bytes from the root
  std::vector<uint32_t> end_;          // one past the last node of the node's subtree
  std::vector<uint32_t> first_token_;  // tokens ending at node i: ids_[first_token_[i], first_token_[i + 1])
  std::vector<uint32_t> ids_;
};

// Sets allowed[id] = 1 for every token whose whole byte string `m` can accept next (m.can_accept),
// 0 otherwise; `allowed` is resized to trie.token_count(). Empty and excluded tokens are never
// allowed. Ending the generation is the caller's decision (m.can_end()). Throws what the matcher
// throws (Error(codes::kResourceExhausted) for a grammar too ambiguous), leaving `m` unchanged.
void allowed_tokens(const Matcher& m, const TokenTrie& trie, std::vector<uint8_t>& allowed);

}  // namespace a3s::power::grammar

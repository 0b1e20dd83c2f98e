// Splitting input text around special-token texts before the model's tokenizer runs.
//
// Which tokens are recognised: user-defined tokens always (they are added vocabulary, e.g.
// DeepSeek's single-character tokens), control and unknown tokens only when `parse_special` is
// set (then "<|im_start|>" in the text becomes that token instead of being spelled out).
// Priority follows llama.cpp `tokenizer_st_partition`: longer texts are carved out first (ties:
// lower id first), each token's occurrences left to right; an occurrence that overlaps text
// already carved out is not a match.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocab.h"

namespace a3s::power::tok {

struct Fragment {
  Token token = -1;   // ≥ 0: a special token; -1: raw text [offset, offset + length)
  size_t offset = 0;
  size_t length = 0;
};

class SpecialTokenMatcher {
 public:
  explicit SpecialTokenMatcher(const Vocab& vocab);

  // Fragments in text order. Raw fragments are never empty. Linear in text size × the length of the
  // longest special token. `quoted`: ascending offsets at which no control or unknown token may begin
  // (caller text inside a rendered prompt, tokenizer/quoted_text.h); user-defined tokens still match.
  std::vector<Fragment> partition(std::string_view text, bool parse_special,
                                  std::span<const size_t> quoted = {}) const;

  // Ascending offsets of `text` at which the text of a control or unknown token begins (overlapping
  // occurrences included): the places tokenizer/quoted_text.h marks in caller text.
  std::vector<size_t> control_starts(std::string_view text) const;

 private:
  struct Node {
    int32_t terminal = -1;  // index into ranked_ when a special text ends here
  };
  int32_t child(int32_t node, uint8_t byte) const;

  std::vector<Token> ranked_;          // special tokens in priority order
  std::vector<uint32_t> length_;       // byte length of each ranked_ text
  std::vector<uint8_t> always_;        // ranked_[i] is matched without parse_special
  std::vector<Node> nodes_;            // trie over the special texts (node 0 = root)
  std::unordered_map<uint64_t, int32_t> edges_;  // (node << 8 | byte) → child node
  bool any_always_ = false;
};

}  // namespace a3s::power::tok

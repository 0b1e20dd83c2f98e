// The state of one constrained generation: which continuations of the output the grammar still allows.
//
// The matcher is a pushdown automaton over code points. A parse stack is the list of grammar
// positions still to match, innermost on top (the top is always a character class); the state is
// the set of stacks that agree with the input so far (several when the grammar is ambiguous or an
// item is optional), plus the bytes of a UTF-8 character begun but not finished. Bytes come in as
// UTF-8, possibly cut anywhere: a partial character is kept pending and accepted when some
// character it can still become is allowed next.
//
// Cost: the states met are interned and every transition (state, byte) -> state is cached, so a
// byte costs one hash lookup once the transition is known, and the token mask (token_mask.h) walks
// a vocabulary trie with one lookup per trie edge it visits. The cache belongs to the Matcher and is
// bounded: past kMatcherCacheSoftBytes it is rebuilt around the current state at the start of the
// next call; a single call that grows it past kMatcherCacheBytes fails.
//
// Limits and errors: a state holds at most kMaxStacks stacks, and expanding one byte visits at most
// kMaxExpansions rule references; beyond either, or past kMatcherCacheBytes, the call throws
// Error(codes::kResourceExhausted) (the grammar is too ambiguous) and the matcher keeps its state.
// The constructor throws Error(codes::kInvalidArgument) for a null grammar. Messages never contain
// grammar or input text.
//
// Thread safety: none. The const members update the cache too; use one Matcher per generation (copy
// it to explore alternatives: a copy has its own cache). A moved-from Matcher may only be assigned
// to or destroyed.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"

namespace a3s::power::grammar {

inline constexpr size_t kMaxStacks = 4096;
inline constexpr size_t kMaxExpansions = 1u << 16;
inline constexpr size_t kMatcherCacheSoftBytes = size_t{16} << 20;
inline constexpr size_t kMatcherCacheBytes = size_t{64} << 20;

namespace detail {
class StackStates;
}

class TokenTrie;

class Matcher {
 public:
  // The state before any output: `root` about to be matched. Throws Error(codes::kResourceExhausted)
  // when that state alone is over the limits above.
  explicit Matcher(std::shared_ptr<const Grammar> g);
  Matcher(const Matcher& other);
  Matcher& operator=(const Matcher& other);
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Feeds bytes (UTF-8, possibly ending inside a multi-byte character: the partial sequence stays
  // pending and is accepted only if some completion of it could be accepted). Returns false and
  // leaves the state unchanged when the bytes cannot continue any sentence of the grammar (invalid
  // UTF-8 never can). Empty input is accepted.
  bool accept(std::string_view bytes);
  // The same test without changing the state.
  bool can_accept(std::string_view bytes) const;
  // The input so far is a complete sentence: `root` fully matched, no partial character pending.
  bool can_end() const;
  // can_end() and no further byte can be accepted: the output is necessarily complete.
  bool finished() const;

  // Back to the state before any output.
  void reset();
  // The number of parse stacks of the current state (a completed `root` counts as one).
  size_t stack_count() const;
  // A partial UTF-8 character is waiting for its remaining bytes.
  bool has_pending_bytes() const;
  // Bytes held by the state and transition cache (at most kMatcherCacheBytes).
  size_t cache_bytes() const;
  const Grammar& grammar() const { return *grammar_; }

 private:
  friend void allowed_tokens(const Matcher& m, const TokenTrie& trie, std::vector<uint8_t>& allowed);

  std::shared_ptr<const Grammar> grammar_;
  mutable std::unique_ptr<detail::StackStates> states_;
  mutable uint32_t current_ = 0;  // a state of states_ (its id changes when the cache is rebuilt)
};

}  // namespace a3s::power::grammar

// The states of a Matcher and the cache of their transitions (internal to the grammar layer).
//
// A stack is a node of a persistent linked list: a node is (grammar position, parent node), node 0
// is the empty stack (root matched completely), and nodes are interned, so equal stacks are the
// same node and stacks share their tails. A state is a sorted set of stack nodes plus a pending
// partial UTF-8 character; states are interned too, and step() caches each (state, byte) result: in
// a hash table, and for a state stepped from often (the state inside a JSON string, met at most
// nodes of a vocabulary trie) also in a direct row of 256 entries.
// Every non-empty stack's top is a character class (rule references are expanded eagerly; the
// grammar has no left recursion, so expansion ends).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/grammar.h"

namespace a3s::power::grammar::detail {

using StateId = uint32_t;
inline constexpr StateId kDeadState = 0xFFFFFFFFu;

class StackStates {
 public:
  explicit StackStates(std::shared_ptr<const Grammar> g);
  StackStates(const StackStates&) = default;
  StackStates& operator=(const StackStates&) = default;
  // The states and transitions follow one generation's output: zeroed when destroyed.
  ~StackStates();

  // The state before any input (computed again after a rebuild).
  StateId start();
  // The state after one more byte, kDeadState when no stack survives. Throws
  // Error(codes::kResourceExhausted) past kMaxStacks, kMaxExpansions or kMatcherCacheBytes.
  StateId step(StateId s, uint8_t byte);

  bool can_end(StateId s) const;
  bool finished(StateId s) const;
  bool pending(StateId s) const { return states_[s].partial != 0; }
  size_t stack_count(StateId s) const { return states_[s].count; }

  // When the cache holds more than kMatcherCacheSoftBytes: drops every state, node and transition,
  // keeps `keep` (interned again) and returns its new id. Otherwise returns `keep`.
  StateId trim(StateId keep);
  size_t memory_bytes() const;

 private:
  struct Node {
    uint32_t pos;     // the next element to match (kChar or kRule; never kEnd)
    uint32_t parent;  // node below; 0: none
  };
  struct State {
    uint32_t begin;  // heads_[begin, begin + count), sorted
    uint32_t count;
    uint32_t partial;  // 0, or a pending UTF-8 prefix (see stack_states.cpp)
    uint32_t hash;
  };
  struct Transition {
    uint64_t key;  // ((state << 8) | byte) + 1; 0: empty slot
    uint32_t value;
  };

  void clear();
  uint32_t intern_node(uint32_t pos, uint32_t parent);
  void grow_nodes();
  StateId intern_state(uint32_t partial);  // from out_
  void grow_states();
  void grow_transitions();

  void begin_round();
  bool visit(uint32_t node);
  void emit(uint32_t pos, uint32_t parent);
  void pop_to(uint32_t node);
  void expand(uint32_t pos, uint32_t parent);
  void run_work();

  StateId advance(StateId s, char32_t cp);
  StateId filter(StateId s, uint32_t partial);
  StateId compute(StateId s, uint8_t byte);
  StateId step_hashed(StateId s, uint8_t byte);
  void check_memory() const;

  std::shared_ptr<const Grammar> g_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> node_slots_;  // open addressing, node ids; 0 empty (node 0 is not in the table)
  std::vector<uint32_t> heads_;
  std::vector<State> states_;
  std::vector<uint32_t> state_slots_;  // state id + 1; 0 empty
  std::vector<Transition> transitions_;
  size_t transition_count_ = 0;
  // Per state: how often step() was asked from it, and its direct row (kNoRow: none yet). rows_ holds
  // 256 entries per row, kUnknownStep where not computed yet.
  std::vector<uint32_t> step_calls_;
  std::vector<uint32_t> row_of_;
  std::vector<StateId> rows_;
  StateId start_ = kDeadState;

  // Scratch of one expansion round.
  std::vector<uint32_t> out_;
  std::vector<std::pair<uint32_t, uint32_t>> work_;
  std::vector<uint32_t> marks_;
  uint32_t round_ = 0;
  size_t expansions_ = 0;
};

}  // namespace a3s::power::grammar::detail

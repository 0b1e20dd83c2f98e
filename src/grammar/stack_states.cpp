#include "grammar/stack_states.h"

#include <algorithm>
#include <unordered_map>

#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "grammar/matcher.h"

namespace a3s::power::grammar::detail {

namespace {

constexpr uint32_t kPopTag = 0xFFFFFFFFu;  // a work item (kPopTag, node): pop to node
constexpr size_t kInitialSlots = 1024;
constexpr uint32_t kNoRow = 0xFFFFFFFFu;
constexpr StateId kUnknownStep = 0xFFFFFFFEu;
// A state gets a direct row after this many step() calls from it; at most kMaxRows rows (1 KiB each).
constexpr uint32_t kCallsBeforeRow = 64;
constexpr size_t kMaxRows = 4096;

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// A pending partial UTF-8 character: (length << 28) | (remaining << 24) | value, where `length` is
// the sequence length (2..4), `remaining` the continuation bytes still to come (1..3) and `value` the
// bits read so far. Never 0 (length >= 2).
uint32_t encode_partial(uint32_t value, uint32_t remaining, uint32_t length) {
  return (length << 28) | (remaining << 24) | value;
}
uint32_t partial_value(uint32_t p) {
  return p & 0x1FFFFF;
}
uint32_t partial_remaining(uint32_t p) {
  return (p >> 24) & 0xF;
}
uint32_t partial_length(uint32_t p) {
  return p >> 28;
}

constexpr char32_t kMinOfLength[5] = {0, 0, 0x80, 0x800, 0x10000};
constexpr char32_t kMaxOfLength[5] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};

// The code points a partial character can still become, as up to two intervals (surrogates and
// overlong forms excluded). Returns how many.
int completions(uint32_t p, char32_t lo[2], char32_t hi[2]) {
  const uint32_t len = partial_length(p);
  const uint32_t shift = 6 * partial_remaining(p);
  char32_t a = static_cast<char32_t>(partial_value(p)) << shift;
  char32_t b = a | ((char32_t{1} << shift) - 1);
  a = std::max(a, kMinOfLength[len]);
  b = std::min(b, kMaxOfLength[len]);
  if (a > b) return 0;
  int n = 0;
  if (a < 0xD800) {
    lo[n] = a;
    hi[n++] = std::min<char32_t>(b, 0xD7FF);
  }
  if (b > 0xDFFF) {
    lo[n] = std::max<char32_t>(a, 0xE000);
    hi[n++] = b;
  }
  return n;
}

}  // namespace

StackStates::StackStates(std::shared_ptr<const Grammar> g) : g_(std::move(g)) {
  clear();
}

namespace {
template <typename T>
void wipe_all(std::vector<T>& v) {
  crypto::wipe(v.data(), v.size() * sizeof(T));
}
}  // namespace

StackStates::~StackStates() {
  wipe_all(nodes_);
  wipe_all(node_slots_);
  wipe_all(heads_);
  wipe_all(states_);
  wipe_all(state_slots_);
  wipe_all(transitions_);
  wipe_all(step_calls_);
  wipe_all(row_of_);
  wipe_all(rows_);
  wipe_all(out_);
  wipe_all(work_);
  wipe_all(marks_);
}

void StackStates::clear() {
  std::vector<Node>{Node{0, 0}}.swap(nodes_);
  std::vector<uint32_t>(kInitialSlots, 0).swap(node_slots_);
  std::vector<uint32_t>().swap(heads_);
  std::vector<State>().swap(states_);
  std::vector<uint32_t>(kInitialSlots, 0).swap(state_slots_);
  std::vector<Transition>(kInitialSlots, Transition{0, 0}).swap(transitions_);
  transition_count_ = 0;
  std::vector<uint32_t>().swap(step_calls_);
  std::vector<uint32_t>().swap(row_of_);
  std::vector<StateId>().swap(rows_);
  std::vector<uint32_t>().swap(marks_);
  round_ = 0;
  start_ = kDeadState;
}

size_t StackStates::memory_bytes() const {
  return nodes_.capacity() * sizeof(Node) + node_slots_.capacity() * sizeof(uint32_t) +
         heads_.capacity() * sizeof(uint32_t) + states_.capacity() * sizeof(State) +
         state_slots_.capacity() * sizeof(uint32_t) + transitions_.capacity() * sizeof(Transition) +
         (step_calls_.capacity() + row_of_.capacity() + marks_.capacity()) * sizeof(uint32_t) +
         rows_.capacity() * sizeof(StateId);
}

void StackStates::check_memory() const {
  if (memory_bytes() > kMatcherCacheBytes) {
    throw Error(codes::kResourceExhausted, "grammar: the matcher's states need more than " +
                                               std::to_string(kMatcherCacheBytes >> 20) +
                                               " MiB (the grammar is too ambiguous)");
  }
}

uint32_t StackStates::intern_node(uint32_t pos, uint32_t parent) {
  if (nodes_.size() * 2 >= node_slots_.size()) grow_nodes();
  const size_t mask = node_slots_.size() - 1;
  size_t i = mix((static_cast<uint64_t>(pos) << 32) | parent) & mask;
  while (true) {
    const uint32_t id = node_slots_[i];
    if (id == 0) {
      const uint32_t created = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{pos, parent});
      node_slots_[i] = created;
      return created;
    }
    if (nodes_[id].pos == pos && nodes_[id].parent == parent) return id;
    i = (i + 1) & mask;
  }
}

void StackStates::grow_nodes() {
  std::vector<uint32_t> slots(node_slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    size_t i = mix((static_cast<uint64_t>(nodes_[id].pos) << 32) | nodes_[id].parent) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id;
  }
  node_slots_.swap(slots);
}

StateId StackStates::intern_state(uint32_t partial) {
  std::sort(out_.begin(), out_.end());
  out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
  if (out_.empty()) return kDeadState;
  if (out_.size() > kMaxStacks) {
    throw Error(codes::kResourceExhausted, "grammar: more than " + std::to_string(kMaxStacks) +
                                               " parse stacks at once (the grammar is too ambiguous)");
  }
  uint64_t h = mix(partial + 0x9e3779b97f4a7c15ULL);
  for (uint32_t n : out_) h = mix(h ^ n) + 0x9e3779b97f4a7c15ULL;
  const uint32_t hash = static_cast<uint32_t>(h);
  if (states_.size() * 2 >= state_slots_.size()) grow_states();
  const size_t mask = state_slots_.size() - 1;
  size_t i = hash & mask;
  while (true) {
    const uint32_t slot = state_slots_[i];
    if (slot == 0) break;
    const State& st = states_[slot - 1];
    if (st.hash == hash && st.partial == partial && st.count == out_.size() &&
        std::equal(out_.begin(), out_.end(), heads_.begin() + st.begin)) {
      return slot - 1;
    }
    i = (i + 1) & mask;
  }
  const StateId id = static_cast<StateId>(states_.size());
  states_.push_back(
      State{static_cast<uint32_t>(heads_.size()), static_cast<uint32_t>(out_.size()), partial, hash});
  step_calls_.push_back(0);
  row_of_.push_back(kNoRow);
  heads_.insert(heads_.end(), out_.begin(), out_.end());
  state_slots_[i] = id + 1;
  return id;
}

void StackStates::grow_states() {
  std::vector<uint32_t> slots(state_slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 0; id < states_.size(); ++id) {
    size_t i = states_[id].hash & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  state_slots_.swap(slots);
}

void StackStates::grow_transitions() {
  std::vector<Transition> table(transitions_.size() * 2, Transition{0, 0});
  const size_t mask = table.size() - 1;
  for (const Transition& t : transitions_) {
    if (t.key == 0) continue;
    size_t i = mix(t.key) & mask;
    while (table[i].key != 0) i = (i + 1) & mask;
    table[i] = t;
  }
  transitions_.swap(table);
}

void StackStates::begin_round() {
  out_.clear();
  work_.clear();
  expansions_ = 0;
  if (++round_ == 0) {  // wrapped: forget every old mark
    std::fill(marks_.begin(), marks_.end(), 0);
    round_ = 1;
  }
}

bool StackStates::visit(uint32_t node) {
  if (node >= marks_.size()) marks_.resize(std::max<size_t>(nodes_.capacity(), node + 1), 0);
  if (marks_[node] == round_) return false;
  marks_[node] = round_;
  return true;
}

// The stack `parent` + [pos]: kept when pos is a character, popped when pos ends an alternative,
// expanded when pos is a rule reference.
void StackStates::emit(uint32_t pos, uint32_t parent) {
  const Element& e = g_->elements[pos];
  switch (e.kind) {
    case Element::Kind::kEnd:
      pop_to(parent);
      break;
    case Element::Kind::kChar:
      out_.push_back(intern_node(pos, parent));
      break;
    case Element::Kind::kRule: {
      const uint32_t id = intern_node(pos, parent);
      if (visit(id)) expand(pos, parent);
      break;
    }
  }
}

void StackStates::pop_to(uint32_t node) {
  if (node == 0) {
    out_.push_back(0);
    return;
  }
  const Node n = nodes_[node];
  if (g_->elements[n.pos].kind == Element::Kind::kChar) {
    out_.push_back(node);
  } else if (visit(node)) {
    expand(n.pos, n.parent);
  }
}

// The rule reference at pos, on top of parent: its continuation (pos + 1, unless the alternative
// ends there) goes below each alternative of the rule.
void StackStates::expand(uint32_t pos, uint32_t parent) {
  if (++expansions_ > kMaxExpansions) {
    throw Error(codes::kResourceExhausted,
                "grammar: more than " + std::to_string(kMaxExpansions) +
                    " rule expansions for one character (the grammar is too ambiguous)");
  }
  const Rule& rule = g_->rules[g_->elements[pos].index];
  const uint32_t cont =
      g_->elements[pos + 1].kind == Element::Kind::kEnd ? parent : intern_node(pos + 1, parent);
  for (uint32_t alt : rule.alternatives) work_.emplace_back(alt, cont);
}

void StackStates::run_work() {
  while (!work_.empty()) {
    const auto [a, b] = work_.back();
    work_.pop_back();
    if (a == kPopTag) {
      pop_to(b);
    } else {
      emit(a, b);
    }
  }
}

StateId StackStates::start() {
  if (start_ != kDeadState) return start_;
  begin_round();
  for (uint32_t alt : g_->rules[g_->root].alternatives) work_.emplace_back(alt, 0);
  run_work();
  start_ = intern_state(0);
  if (start_ == kDeadState) throw Error(codes::kInternal, "grammar: the start rule has no alternative");
  return start_;
}

bool StackStates::can_end(StateId s) const {
  const State& st = states_[s];
  return st.partial == 0 && st.count > 0 && heads_[st.begin] == 0;
}

bool StackStates::finished(StateId s) const {
  const State& st = states_[s];
  return st.partial == 0 && st.count == 1 && heads_[st.begin] == 0;
}

StateId StackStates::advance(StateId s, char32_t cp) {
  begin_round();
  const State st = states_[s];
  for (uint32_t i = st.begin; i < st.begin + st.count; ++i) {
    const uint32_t h = heads_[i];
    if (h == 0) continue;
    const Node n = nodes_[h];
    if (g_->classes[g_->elements[n.pos].index].contains(cp)) {
      work_.emplace_back(n.pos + 1, n.parent);
      run_work();
    }
  }
  return intern_state(0);
}

StateId StackStates::filter(StateId s, uint32_t partial) {
  char32_t lo[2], hi[2];
  const int n_intervals = completions(partial, lo, hi);
  if (n_intervals == 0) return kDeadState;
  begin_round();
  const State st = states_[s];
  for (uint32_t i = st.begin; i < st.begin + st.count; ++i) {
    const uint32_t h = heads_[i];
    if (h == 0) continue;
    const CharClass& cc = g_->classes[g_->elements[nodes_[h].pos].index];
    for (int k = 0; k < n_intervals; ++k) {
      if (cc.intersects(lo[k], hi[k])) {
        out_.push_back(h);
        break;
      }
    }
  }
  return intern_state(partial);
}

StateId StackStates::compute(StateId s, uint8_t b) {
  const uint32_t partial = states_[s].partial;
  if (partial == 0) {
    if (b < 0x80) return advance(s, b);
    if ((b & 0xE0) == 0xC0) return filter(s, encode_partial(b & 0x1Fu, 1, 2));
    if ((b & 0xF0) == 0xE0) return filter(s, encode_partial(b & 0x0Fu, 2, 3));
    if ((b & 0xF8) == 0xF0) return filter(s, encode_partial(b & 0x07u, 3, 4));
    return kDeadState;
  }
  if ((b & 0xC0) != 0x80) return kDeadState;
  const uint32_t value = (partial_value(partial) << 6) | (b & 0x3Fu);
  const uint32_t remaining = partial_remaining(partial) - 1;
  const uint32_t length = partial_length(partial);
  if (remaining > 0) return filter(s, encode_partial(value, remaining, length));
  const char32_t cp = value;
  if (cp < kMinOfLength[length] || cp > kMaxOfLength[length] || (cp >= 0xD800 && cp <= 0xDFFF))
    return kDeadState;
  return advance(s, cp);
}

StateId StackStates::step(StateId s, uint8_t byte) {
  const uint32_t row = row_of_[s];
  if (row != kNoRow) {
    const size_t at = static_cast<size_t>(row) * 256 + byte;
    if (rows_[at] == kUnknownStep) rows_[at] = step_hashed(s, byte);  // step_hashed leaves rows_ alone
    return rows_[at];
  }
  if (++step_calls_[s] == kCallsBeforeRow && rows_.size() < kMaxRows * 256) {
    row_of_[s] = static_cast<uint32_t>(rows_.size() / 256);
    rows_.resize(rows_.size() + 256, kUnknownStep);
  }
  return step_hashed(s, byte);
}

StateId StackStates::step_hashed(StateId s, uint8_t byte) {
  const uint64_t key = ((static_cast<uint64_t>(s) << 8) | byte) + 1;
  size_t mask = transitions_.size() - 1;
  size_t i = mix(key) & mask;
  while (transitions_[i].key != 0) {
    if (transitions_[i].key == key) return transitions_[i].value;
    i = (i + 1) & mask;
  }
  const StateId next = compute(s, byte);
  if ((transition_count_ + 1) * 2 >= transitions_.size()) {
    grow_transitions();
    mask = transitions_.size() - 1;
    i = mix(key) & mask;
    while (transitions_[i].key != 0) i = (i + 1) & mask;
  }
  transitions_[i] = Transition{key, next};
  ++transition_count_;
  check_memory();
  return next;
}

StateId StackStates::trim(StateId keep) {
  if (memory_bytes() <= kMatcherCacheSoftBytes) return keep;
  const std::vector<Node> old_nodes = std::move(nodes_);
  const State kept = states_[keep];
  const std::vector<uint32_t> old_heads(heads_.begin() + kept.begin,
                                        heads_.begin() + kept.begin + kept.count);
  clear();
  // Intern each kept stack again, bottom up, sharing the tails already copied.
  std::unordered_map<uint32_t, uint32_t> copied{{0, 0}};
  std::vector<uint32_t> chain;
  std::vector<uint32_t> heads;
  for (uint32_t h : old_heads) {
    chain.clear();
    uint32_t n = h;
    while (copied.find(n) == copied.end()) {
      chain.push_back(n);
      n = old_nodes[n].parent;
    }
    uint32_t below = copied[n];
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      below = intern_node(old_nodes[*it].pos, below);
      copied.emplace(*it, below);
    }
    heads.push_back(below);
  }
  out_ = std::move(heads);
  return intern_state(kept.partial);
}

}  // namespace a3s::power::grammar::detail

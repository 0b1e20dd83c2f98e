#include "grammar/json_schema_automata.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "base/utf8.h"

namespace a3s::power::grammar::schema {

namespace {

constexpr char32_t kSurrogateLo = 0xD800;
constexpr char32_t kSurrogateHi = 0xDFFF;

}  // namespace

// ---- CodeSet ----

CodeSet CodeSet::single(char32_t c) {
  CodeSet s;
  s.add(c, c);
  return s;
}

CodeSet CodeSet::range(char32_t lo, char32_t hi) {
  CodeSet s;
  s.add(lo, hi);
  return s;
}

CodeSet CodeSet::universe() {
  return range(0, kMaxCodePoint);
}

void CodeSet::add(char32_t lo, char32_t hi) {
  if (hi > kMaxCodePoint) hi = kMaxCodePoint;
  if (lo > hi) return;
  if (lo <= kSurrogateHi && hi >= kSurrogateLo) {
    if (lo < kSurrogateLo) add(lo, kSurrogateLo - 1);
    if (hi > kSurrogateHi) add(kSurrogateHi + 1, hi);
    return;
  }
  ranges_.push_back({lo, hi});
  normalize();
}

void CodeSet::add(const CodeSet& other) {
  if (other.ranges_.empty()) return;
  ranges_.insert(ranges_.end(), other.ranges_.begin(), other.ranges_.end());
  normalize();
}

void CodeSet::normalize() {
  std::sort(ranges_.begin(), ranges_.end());
  std::vector<Range> out;
  out.reserve(ranges_.size());
  for (const Range& r : ranges_) {
    if (!out.empty() && static_cast<uint64_t>(out.back().hi) + 1 >= r.lo) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  ranges_ = std::move(out);
}

CodeSet CodeSet::complement() const {
  CodeSet out;
  char32_t next = 0;
  for (const Range& r : ranges_) {
    if (r.lo > next) out.ranges_.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= kMaxCodePoint) out.ranges_.push_back({next, kMaxCodePoint});
  // Take the surrogates out again (gaps may span them).
  CodeSet clean;
  for (const Range& r : out.ranges_) clean.add(r.lo, r.hi);
  return clean;
}

CodeSet CodeSet::intersection(const CodeSet& other) const {
  CodeSet out;
  size_t i = 0;
  size_t j = 0;
  while (i < ranges_.size() && j < other.ranges_.size()) {
    const Range& a = ranges_[i];
    const Range& b = other.ranges_[j];
    const char32_t lo = std::max(a.lo, b.lo);
    const char32_t hi = std::min(a.hi, b.hi);
    if (lo <= hi) out.ranges_.push_back({lo, hi});
    if (a.hi < b.hi) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

CodeSet CodeSet::difference(const CodeSet& other) const {
  return intersection(other.complement());
}

bool CodeSet::contains(char32_t c) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), c,
                             [](char32_t v, const Range& r) { return v < r.lo; });
  if (it == ranges_.begin()) return false;
  --it;
  return c <= it->hi;
}

// ---- DFA operations ----

Dfa trim(const Dfa& dfa) {
  const size_t n = dfa.states.size();
  if (n == 0) return {};
  std::vector<char> reach(n, 0);
  std::vector<int> stack{0};
  reach[0] = 1;
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    for (const Dfa::Edge& e : dfa.states[s].edges) {
      if (!reach[e.target]) {
        reach[e.target] = 1;
        stack.push_back(e.target);
      }
    }
  }
  std::vector<std::vector<int>> reverse(n);
  for (size_t s = 0; s < n; ++s) {
    for (const Dfa::Edge& e : dfa.states[s].edges) reverse[e.target].push_back(static_cast<int>(s));
  }
  std::vector<char> live(n, 0);
  for (size_t s = 0; s < n; ++s) {
    if (dfa.states[s].accepting) {
      live[s] = 1;
      stack.push_back(static_cast<int>(s));
    }
  }
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    for (int p : reverse[s]) {
      if (!live[p]) {
        live[p] = 1;
        stack.push_back(p);
      }
    }
  }
  if (!reach[0] || !live[0]) return {};
  std::vector<int> index(n, -1);
  Dfa out;
  for (size_t s = 0; s < n; ++s) {
    if (reach[s] && live[s]) {
      index[s] = static_cast<int>(out.states.size());
      out.states.emplace_back();
    }
  }
  for (size_t s = 0; s < n; ++s) {
    if (index[s] < 0) continue;
    Dfa::State& to = out.states[index[s]];
    to.accepting = dfa.states[s].accepting;
    for (const Dfa::Edge& e : dfa.states[s].edges) {
      if (index[e.target] >= 0 && !e.set.empty()) to.edges.push_back({e.set, index[e.target]});
    }
  }
  return out;
}

Dfa minimize(const Dfa& input) {
  const Dfa dfa = trim(input);
  const size_t n = dfa.states.size();
  if (n <= 1) return dfa;
  // The alphabet: the elementary intervals between every range boundary of every edge.
  std::vector<char32_t> cuts;
  for (const Dfa::State& s : dfa.states) {
    for (const Dfa::Edge& e : s.edges) {
      for (const CodeSet::Range& r : e.set.ranges()) {
        cuts.push_back(r.lo);
        cuts.push_back(r.hi + 1);
      }
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  const size_t m = cuts.empty() ? 0 : cuts.size() - 1;
  if (m == 0 || (n + 1) * m > (size_t{1} << 24)) return dfa;  // too large to be worth it
  // Total transitions over n + 1 states: state n is the dead state.
  const size_t total = n + 1;
  const auto dead = static_cast<int>(n);
  std::vector<int> next(total * m, dead);
  for (size_t s = 0; s < n; ++s) {
    for (const Dfa::Edge& e : dfa.states[s].edges) {
      for (const CodeSet::Range& r : e.set.ranges()) {
        size_t k = static_cast<size_t>(std::lower_bound(cuts.begin(), cuts.end(), r.lo) - cuts.begin());
        for (; k < m && cuts[k] <= r.hi; ++k) next[s * m + k] = e.target;
      }
    }
  }
  // Inverse transitions per symbol (compressed rows): the states that reach t on k are
  // inverse[offset[k * (total + 1) + t] .. offset[k * (total + 1) + t + 1]).
  std::vector<size_t> offset(m * (total + 1) + 1, 0);
  for (size_t s = 0; s < total; ++s) {
    for (size_t k = 0; k < m; ++k) ++offset[k * (total + 1) + static_cast<size_t>(next[s * m + k]) + 1];
  }
  for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
  std::vector<int> inverse(total * m);
  {
    std::vector<size_t> fill(offset.begin(), offset.end() - 1);
    for (size_t s = 0; s < total; ++s) {
      for (size_t k = 0; k < m; ++k) {
        inverse[fill[k * (total + 1) + static_cast<size_t>(next[s * m + k])]++] = static_cast<int>(s);
      }
    }
  }
  // Hopcroft's partition refinement. Blocks are ranges of `elems`.
  std::vector<int> elems(total);
  std::vector<int> block_of(total);
  std::vector<size_t> pos_of(total);
  std::vector<size_t> first;
  std::vector<size_t> last;  // one past the end
  {
    size_t at = 0;
    for (int pass = 0; pass < 2; ++pass) {
      const size_t begin = at;
      for (size_t s = 0; s < total; ++s) {
        const bool accepting = s < n && dfa.states[s].accepting;
        if (accepting == (pass == 0)) {
          elems[at] = static_cast<int>(s);
          pos_of[s] = at;
          block_of[s] = static_cast<int>(first.size());
          ++at;
        }
      }
      if (at > begin) {
        first.push_back(begin);
        last.push_back(at);
      }
    }
  }
  std::vector<char> in_work;
  std::vector<std::pair<int, size_t>> work;
  auto push_work = [&](int b, size_t k) {
    const size_t key = static_cast<size_t>(b) * m + k;
    if (in_work.size() <= key) in_work.resize((static_cast<size_t>(b) + 1) * m, 0);
    if (!in_work[key]) {
      in_work[key] = 1;
      work.emplace_back(b, k);
    }
  };
  auto is_in_work = [&](int b, size_t k) {
    const size_t key = static_cast<size_t>(b) * m + k;
    return key < in_work.size() && in_work[key];
  };
  if (first.size() == 2) {
    const int smaller = (last[0] - first[0] <= last[1] - first[1]) ? 0 : 1;
    for (size_t k = 0; k < m; ++k) push_work(smaller, k);
  }
  std::vector<size_t> marked;  // per block: how many of its first elements are marked
  std::vector<int> touched;
  std::vector<int> splitter;
  while (!work.empty()) {
    const auto [a, k] = work.back();
    work.pop_back();
    in_work[static_cast<size_t>(a) * m + k] = 0;
    splitter.assign(elems.begin() + static_cast<std::ptrdiff_t>(first[a]),
                    elems.begin() + static_cast<std::ptrdiff_t>(last[a]));
    marked.resize(first.size(), 0);
    for (int t : splitter) {
      const size_t row = k * (total + 1) + static_cast<size_t>(t);
      for (size_t i = offset[row]; i < offset[row + 1]; ++i) {
        const int s = inverse[i];
        const int b = block_of[s];
        const size_t p = pos_of[s];
        if (p < first[b] + marked[b]) continue;  // already marked
        if (marked[b] == 0) touched.push_back(b);
        // Swap s to the end of the marked prefix of its block.
        const size_t q = first[b] + marked[b];
        const int other = elems[q];
        elems[q] = s;
        pos_of[s] = q;
        elems[p] = other;
        pos_of[other] = p;
        ++marked[b];
      }
    }
    for (int b : touched) {
      const size_t count = marked[b];
      marked[b] = 0;
      if (count == last[b] - first[b]) continue;
      // The marked prefix becomes a new block.
      const int z = static_cast<int>(first.size());
      first.push_back(first[b]);
      last.push_back(first[b] + count);
      first[b] += count;
      marked.push_back(0);
      for (size_t i = first[z]; i < last[z]; ++i) block_of[elems[i]] = z;
      for (size_t c = 0; c < m; ++c) {
        if (is_in_work(b, c)) {
          push_work(z, c);
        } else {
          push_work((last[z] - first[z] <= last[b] - first[b]) ? z : b, c);
        }
      }
    }
    touched.clear();
  }
  // One state per block but the dead one; the start's block first.
  const int dead_block = block_of[dead];
  std::vector<int> order(first.size(), -1);
  int used = 0;
  order[block_of[0]] = used++;
  for (size_t s = 1; s < n; ++s) {
    if (order[block_of[s]] < 0 && block_of[s] != dead_block) order[block_of[s]] = used++;
  }
  Dfa out;
  out.states.resize(static_cast<size_t>(used));
  std::vector<char> done(static_cast<size_t>(used), 0);
  for (size_t s = 0; s < n; ++s) {
    const int b = order[block_of[s]];
    if (b < 0 || done[b]) continue;
    done[b] = 1;
    Dfa::State& st = out.states[b];
    st.accepting = dfa.states[s].accepting;
    std::map<int, CodeSet> by_target;
    for (size_t k = 0; k < m; ++k) {
      const int t = next[s * m + k];
      if (t != dead && order[block_of[t]] >= 0) by_target[order[block_of[t]]].add(cuts[k], cuts[k + 1] - 1);
    }
    for (auto& [t, set] : by_target) st.edges.push_back({std::move(set), t});
  }
  return out;
}

Dfa intersect(const Dfa& a, const Dfa& b, size_t max_states) {
  if (a.empty() || b.empty()) return {};
  std::map<std::pair<int, int>, int> ids;
  std::deque<std::pair<int, int>> queue;
  Dfa out;
  auto id_of = [&](int x, int y) {
    auto [it, inserted] = ids.emplace(std::make_pair(x, y), static_cast<int>(out.states.size()));
    if (inserted) {
      if (out.states.size() >= max_states) throw AutomatonTooLarge{};
      out.states.emplace_back();
      out.states.back().accepting = a.states[x].accepting && b.states[y].accepting;
      queue.emplace_back(x, y);
    }
    return it->second;
  };
  id_of(0, 0);
  while (!queue.empty()) {
    const auto [x, y] = queue.front();
    queue.pop_front();
    const int self = ids.at({x, y});
    std::map<int, CodeSet> by_target;
    for (const Dfa::Edge& ea : a.states[x].edges) {
      for (const Dfa::Edge& eb : b.states[y].edges) {
        CodeSet both = ea.set.intersection(eb.set);
        if (both.empty()) continue;
        const int t = id_of(ea.target, eb.target);
        by_target[t].add(both);
      }
    }
    for (auto& [t, set] : by_target) out.states[self].edges.push_back({std::move(set), t});
  }
  return trim(out);
}

WordLengths word_lengths(const Dfa& dfa) {
  WordLengths out;
  const size_t n = dfa.states.size();
  if (n == 0) return out;
  // Shortest: breadth-first distance to an accepting state.
  std::vector<uint64_t> dist(n, UINT64_MAX);
  std::deque<int> queue{0};
  dist[0] = 0;
  uint64_t shortest = UINT64_MAX;
  while (!queue.empty()) {
    const int s = queue.front();
    queue.pop_front();
    if (dfa.states[s].accepting) shortest = std::min(shortest, dist[s]);
    for (const Dfa::Edge& e : dfa.states[s].edges) {
      if (dist[e.target] == UINT64_MAX) {
        dist[e.target] = dist[s] + 1;
        queue.push_back(e.target);
      }
    }
  }
  out.min = shortest == UINT64_MAX ? 0 : shortest;
  // Longest: a cycle (every state of a trimmed DFA is live) makes it unbounded; otherwise the
  // longest path in the DAG.
  std::vector<int> indegree(n, 0);
  for (const Dfa::State& s : dfa.states) {
    for (const Dfa::Edge& e : s.edges) ++indegree[e.target];
  }
  std::vector<int> order;
  for (size_t s = 0; s < n; ++s) {
    if (indegree[s] == 0) order.push_back(static_cast<int>(s));
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Dfa::Edge& e : dfa.states[order[i]].edges) {
      if (--indegree[e.target] == 0) order.push_back(e.target);
    }
  }
  if (order.size() != n) return out;  // cyclic
  std::vector<int64_t> longest(n, -1);
  longest[0] = 0;
  uint64_t best = 0;
  for (int s : order) {
    if (longest[s] < 0) continue;
    if (dfa.states[s].accepting) best = std::max(best, static_cast<uint64_t>(longest[s]));
    for (const Dfa::Edge& e : dfa.states[s].edges)
      longest[e.target] = std::max(longest[e.target], longest[s] + 1);
  }
  out.max = best;
  return out;
}

Dfa bound_length(const Dfa& input, uint64_t min, std::optional<uint64_t> max, size_t max_states) {
  const Dfa dfa = trim(input);
  if (dfa.empty()) return {};
  if (max && *max < min) return {};
  const WordLengths have = word_lengths(dfa);
  if (have.min >= min && (!max || (have.max && *have.max <= *max))) return dfa;
  // The product with a counter of the code points read: 0..max, or saturating at min.
  const uint64_t cap = max ? *max : min;
  std::map<std::pair<int, uint64_t>, int> ids;
  std::deque<std::pair<int, uint64_t>> queue;
  Dfa out;
  auto id_of = [&](int q, uint64_t k) {
    auto [it, inserted] = ids.emplace(std::make_pair(q, k), static_cast<int>(out.states.size()));
    if (inserted) {
      if (out.states.size() >= max_states) throw AutomatonTooLarge{};
      out.states.emplace_back();
      out.states.back().accepting = dfa.states[q].accepting && k >= min;
      queue.emplace_back(q, k);
    }
    return it->second;
  };
  id_of(0, 0);
  while (!queue.empty()) {
    const auto [q, k] = queue.front();
    queue.pop_front();
    const int self = ids.at({q, k});
    if (max && k >= *max) continue;
    const uint64_t k2 = max ? k + 1 : std::min(k + 1, cap);
    for (const Dfa::Edge& e : dfa.states[q].edges) {
      const int t = id_of(e.target, k2);
      out.states[self].edges.push_back({e.set, t});
    }
  }
  return trim(out);
}

bool matches(const Dfa& dfa, std::u32string_view text) {
  if (dfa.empty()) return false;
  int s = 0;
  for (char32_t c : text) {
    int next = -1;
    for (const Dfa::Edge& e : dfa.states[s].edges) {
      if (e.set.contains(c)) {
        next = e.target;
        break;
      }
    }
    if (next < 0) return false;
    s = next;
  }
  return dfa.states[s].accepting;
}

std::optional<std::u32string> decode_utf8_text(std::string_view text) {
  std::u32string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const Utf8Char c = decode_utf8(text, pos, Utf8Rules::kStrict);
    if (c.status != Utf8Status::kOk) return std::nullopt;
    out.push_back(c.code_point);
    pos += c.length;
  }
  return out;
}

// ---- Numeric ranges ----

namespace {

void strip_decimal(DecimalBound& d) {
  size_t lead = 0;
  while (lead + 1 < d.int_digits.size() && d.int_digits[lead] == '0') ++lead;
  d.int_digits.erase(0, lead);
  if (d.int_digits.empty()) d.int_digits = "0";
  while (!d.frac_digits.empty() && d.frac_digits.back() == '0') d.frac_digits.pop_back();
  if (d.int_digits == "0" && d.frac_digits.empty()) d.negative = false;
}

// A comparison of a magnitude (digits, optional fraction) with a fixed magnitude.
enum class Cmp { kGe, kGt, kLe, kLt };

struct MagnitudeTest {
  Cmp cmp;
  std::string int_digits;
  std::string frac_digits;
};

// The state of reading a magnitude: phase 0 start, 1 integer digits, 2 integer "0" (closed),
// 3 after '.', 4 fraction digits. `i` integer digits read (capped at n + 1), `rel` the comparison
// of what was read with the bound's digits (-1, 0, 1): the first difference, or 0 while equal;
// in the fraction, `rel` is final unless still 0, and `j` the fraction digits read (capped).
struct MagState {
  int phase = 0;
  int i = 0;
  int rel = 0;
  int j = 0;
  auto operator<=>(const MagState&) const = default;
};

int sign_of(int a, int b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// `max_digits` (when not 0) bounds the integer digits.
Dfa magnitude_dfa(bool integer, const std::optional<MagnitudeTest>& test, int max_digits = 0) {
  const int n = test ? static_cast<int>(test->int_digits.size()) : 0;
  const int f = test ? static_cast<int>(test->frac_digits.size()) : 0;
  auto int_final = [&](const MagState& s) { return s.i > n ? 1 : (s.i < n ? -1 : s.rel); };
  auto step = [&](const MagState& s, char c) -> std::optional<MagState> {
    MagState t = s;
    const bool digit = c >= '0' && c <= '9';
    const int d = c - '0';
    switch (s.phase) {
      case 0:
        if (!digit) return std::nullopt;
        t.phase = d == 0 ? 2 : 1;
        t.i = 1;
        t.rel = test ? sign_of(d, test->int_digits[0] - '0') : 0;
        return t;
      case 1:
      case 2:
        if (c == '.') {
          if (integer) return std::nullopt;
          t.phase = 3;
          t.rel = test ? int_final(s) : 0;
          t.i = 0;
          t.j = 0;
          return t;
        }
        if (!digit || s.phase == 2) return std::nullopt;
        if (max_digits > 0 && s.i >= max_digits) return std::nullopt;
        t.i = std::min(s.i + 1, std::max(n + 1, max_digits));
        if (test && s.rel == 0 && s.i < n) t.rel = sign_of(d, test->int_digits[s.i] - '0');
        return t;
      case 3:
      case 4:
        if (!digit) return std::nullopt;
        t.phase = 4;
        if (test && s.rel == 0) {
          if (s.j < f) {
            t.rel = sign_of(d, test->frac_digits[s.j] - '0');
          } else {
            t.rel = d > 0 ? 1 : 0;
          }
          t.j = std::min(s.j + 1, f);
        }
        if (t.rel != 0) t.j = 0;
        return t;
      default:
        return std::nullopt;
    }
  };
  auto accepts = [&](const MagState& s) {
    int final = 0;
    if (s.phase == 1 || s.phase == 2) {
      final = int_final(s);
      if (final == 0 && f > 0) final = -1;  // x has no fraction, the bound has one
    } else if (s.phase == 4) {
      final = (s.rel == 0 && s.j < f) ? -1 : s.rel;
    } else {
      return false;
    }
    if (!test) return true;
    switch (test->cmp) {
      case Cmp::kGe:
        return final >= 0;
      case Cmp::kGt:
        return final > 0;
      case Cmp::kLe:
        return final <= 0;
      case Cmp::kLt:
        return final < 0;
    }
    return false;
  };
  std::map<MagState, int> ids;
  std::deque<MagState> queue;
  Dfa out;
  auto id_of = [&](const MagState& s) {
    auto [it, inserted] = ids.emplace(s, static_cast<int>(out.states.size()));
    if (inserted) {
      out.states.emplace_back();
      out.states.back().accepting = accepts(s);
      queue.push_back(s);
    }
    return it->second;
  };
  id_of(MagState{});
  static constexpr std::string_view kAlphabet = "0123456789.";
  while (!queue.empty()) {
    const MagState s = queue.front();
    queue.pop_front();
    const int self = ids.at(s);
    std::map<int, CodeSet> by_target;
    for (char c : kAlphabet) {
      if (auto t = step(s, c)) by_target[id_of(*t)].add(static_cast<char32_t>(c));
    }
    for (auto& [t, set] : by_target) out.states[self].edges.push_back({std::move(set), t});
  }
  return trim(out);
}

Dfa intersect_all(std::vector<Dfa> parts, size_t max_states) {
  Dfa acc = std::move(parts.front());
  for (size_t i = 1; i < parts.size(); ++i) acc = intersect(acc, parts[i], max_states);
  return acc;
}

bool is_zero(const DecimalBound& b) {
  return b.int_digits == "0" && b.frac_digits.empty();
}

MagnitudeTest test_of(Cmp cmp, const DecimalBound& b) {
  return {cmp, b.int_digits, b.frac_digits};
}

}  // namespace

DecimalBound decimal_of(int64_t value) {
  DecimalBound d;
  d.negative = value < 0;
  const uint64_t mag = value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
  d.int_digits = std::to_string(mag);
  strip_decimal(d);
  return d;
}

DecimalBound decimal_of(uint64_t value) {
  DecimalBound d;
  d.int_digits = std::to_string(value);
  strip_decimal(d);
  return d;
}

DecimalBound decimal_of(double value) {
  DecimalBound d;
  if (!std::isfinite(value) || value == 0) return d;
  d.negative = value < 0;
  std::array<char, 64> buf{};
  const auto res =
      std::to_chars(buf.data(), buf.data() + buf.size(), std::fabs(value), std::chars_format::scientific);
  const std::string_view text(buf.data(), static_cast<size_t>(res.ptr - buf.data()));
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exp_text = text.substr(e + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  const int point = 1 + exponent;  // digits before the decimal point
  if (point <= 0) {
    d.int_digits = "0";
    d.frac_digits = std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    d.int_digits = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    d.int_digits = digits.substr(0, static_cast<size_t>(point));
    d.frac_digits = digits.substr(static_cast<size_t>(point));
  }
  strip_decimal(d);
  return d;
}

NumberRange number_range(bool integer, const std::optional<DecimalBound>& lower,
                         const std::optional<DecimalBound>& upper, size_t max_states) {
  NumberRange result;
  // A part without an upper bound on its magnitude keeps integer parts up to the digits of its
  // lower bound in the automaton; every longer magnitude is in range (the caller writes those).
  auto long_from = [](const DecimalBound* bound) {
    return bound ? std::max<uint32_t>(static_cast<uint32_t>(bound->int_digits.size()), 1) : 1;
  };
  // Non-negative values x: lower a >= 0 constrains x directly, upper b must be >= 0.
  Dfa nonneg;
  const bool upper_negative = upper && (upper->negative || (is_zero(*upper) && upper->exclusive));
  if (!upper_negative) {
    const DecimalBound* magnitude_lower = (lower && !lower->negative) ? &*lower : nullptr;
    int cap = 0;
    if (!upper) {
      result.long_nonneg = long_from(magnitude_lower);
      cap = static_cast<int>(*result.long_nonneg);
    }
    std::vector<Dfa> parts{magnitude_dfa(integer, std::nullopt, cap)};
    if (magnitude_lower) {
      if (!is_zero(*lower)) {
        parts.push_back(magnitude_dfa(integer, test_of(lower->exclusive ? Cmp::kGt : Cmp::kGe, *lower)));
      } else if (lower->exclusive) {
        parts.push_back(magnitude_dfa(integer, test_of(Cmp::kGt, *lower)));
      }
    }
    if (upper)
      parts.push_back(magnitude_dfa(integer, test_of(upper->exclusive ? Cmp::kLt : Cmp::kLe, *upper)));
    nonneg = intersect_all(std::move(parts), max_states);
  }
  // Negative values -x, x > 0: only when the lower bound is negative (or absent).
  Dfa negative;
  if (!lower || lower->negative) {
    const DecimalBound* magnitude_lower = (upper && upper->negative) ? &*upper : nullptr;
    int cap = 0;
    if (!lower) {
      result.long_negative = long_from(magnitude_lower);
      cap = static_cast<int>(*result.long_negative);
    }
    std::vector<Dfa> parts{magnitude_dfa(integer, std::nullopt, cap),
                           magnitude_dfa(integer, test_of(Cmp::kGt, DecimalBound{}))};
    if (lower)
      parts.push_back(magnitude_dfa(integer, test_of(lower->exclusive ? Cmp::kLt : Cmp::kLe, *lower)));
    if (magnitude_lower) {
      parts.push_back(magnitude_dfa(integer, test_of(upper->exclusive ? Cmp::kGt : Cmp::kGe, *upper)));
    }
    negative = intersect_all(std::move(parts), max_states);
  }
  // Join: a new start whose '-' leads into the negative part.
  Dfa out;
  out.states.emplace_back();
  auto append = [&](const Dfa& part) {
    const int offset = static_cast<int>(out.states.size());
    for (const Dfa::State& s : part.states) {
      Dfa::State copy = s;
      for (Dfa::Edge& e : copy.edges) e.target += offset;
      out.states.push_back(std::move(copy));
    }
    return offset;
  };
  if (!nonneg.empty()) {
    const int offset = append(nonneg);
    for (Dfa::Edge e : nonneg.states[0].edges) {
      e.target += offset;
      out.states[0].edges.push_back(std::move(e));
    }
  }
  if (!negative.empty()) {
    const int offset = append(negative);
    out.states[0].edges.push_back({CodeSet::single('-'), offset});
  }
  if (out.states.size() > max_states) throw AutomatonTooLarge{};
  result.dfa = minimize(out);
  return result;
}

}  // namespace a3s::power::grammar::schema

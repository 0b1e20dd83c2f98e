// Finite automata over Unicode code points, for the JSON Schema compiler (json_schema.h): the string
// keywords (pattern, format, minLength / maxLength, the names an object's additional members may not
// take) and the numeric bounds become deterministic automata, which the compiler writes out as
// right-linear grammar rules (one rule per state). Internal to src/grammar.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::grammar::schema {

inline constexpr char32_t kMaxCodePoint = 0x10FFFF;

// A set of Unicode scalar values (U+0000..U+10FFFF without the surrogates U+D800..U+DFFF): sorted,
// disjoint, non-adjacent closed ranges. Surrogates are never members (add() leaves them out).
class CodeSet {
 public:
  struct Range {
    char32_t lo;
    char32_t hi;
    auto operator<=>(const Range&) const = default;
  };

  CodeSet() = default;
  static CodeSet single(char32_t c);
  static CodeSet range(char32_t lo, char32_t hi);
  static CodeSet universe();

  void add(char32_t lo, char32_t hi);
  void add(char32_t c) { add(c, c); }
  void add(const CodeSet& other);

  CodeSet complement() const;  // universe() minus this
  CodeSet intersection(const CodeSet& other) const;
  CodeSet difference(const CodeSet& other) const;
  bool contains(char32_t c) const;
  bool empty() const { return ranges_.empty(); }
  const std::vector<Range>& ranges() const { return ranges_; }

  auto operator<=>(const CodeSet&) const = default;

 private:
  void normalize();
  std::vector<Range> ranges_;
};

// A deterministic automaton: states[0] is the start; no states at all is the empty language. The
// edges of a state have disjoint sets; a code point without an edge is refused.
struct Dfa {
  struct Edge {
    CodeSet set;
    int target = 0;
  };
  struct State {
    std::vector<Edge> edges;
    bool accepting = false;
  };
  std::vector<State> states;

  bool empty() const { return states.empty(); }
};

// Thrown when an automaton would exceed its state budget (the caller turns it into an Error).
struct AutomatonTooLarge {};

// The states that are reachable and can reach acceptance, renumbered (start first); the empty DFA
// when the start cannot reach acceptance.
Dfa trim(const Dfa& dfa);
// The minimal equivalent DFA (Moore's partition refinement over the edges' elementary intervals).
Dfa minimize(const Dfa& dfa);
// The intersection of two languages. Throws AutomatonTooLarge past max_states.
Dfa intersect(const Dfa& a, const Dfa& b, size_t max_states);
// The words of `dfa` whose length in code points is in [min, max] (max absent: no upper bound).
// Throws AutomatonTooLarge past max_states.
Dfa bound_length(const Dfa& dfa, uint64_t min, std::optional<uint64_t> max, size_t max_states);
// Whether `dfa` accepts the code points of `text`.
bool matches(const Dfa& dfa, std::u32string_view text);

// The shortest and longest accepted words (max absent when unbounded). The DFA must be trimmed and
// non-empty.
struct WordLengths {
  uint64_t min = 0;
  std::optional<uint64_t> max;
};
WordLengths word_lengths(const Dfa& dfa);

// A bound of a numeric range as a decimal: the magnitude's integer digits (no leading zeros; "0" for
// a magnitude below 1) and fraction digits (no trailing zeros), its sign, and whether it is exclusive.
struct DecimalBound {
  bool negative = false;  // never set for zero
  std::string int_digits = "0";
  std::string frac_digits;
  bool exclusive = false;
};
// The decimal digits of a finite double, shortest round-trip form (0.1 is "0" . "1").
DecimalBound decimal_of(double value);
DecimalBound decimal_of(int64_t value);
DecimalBound decimal_of(uint64_t value);

// JSON numbers (without an exponent; integers only when `integer`) whose value lies within the
// bounds, written without a negative zero. A side without a bound is infinite: `dfa` then holds
// its magnitudes of at most long_nonneg (long_negative) integer digits, and every magnitude with
// more integer digits (and any fraction unless `integer`) is in range too; the caller writes that
// part (so that it can bound the digits). Throws AutomatonTooLarge past max_states.
struct NumberRange {
  Dfa dfa;
  std::optional<uint32_t> long_nonneg;    // x >= 0 with more integer digits than this is in range
  std::optional<uint32_t> long_negative;  // -x with x having more integer digits than this is in range
};
NumberRange number_range(bool integer, const std::optional<DecimalBound>& lower,
                         const std::optional<DecimalBound>& upper, size_t max_states);

// Decodes strict UTF-8 into code points; nullopt for invalid UTF-8.
std::optional<std::u32string> decode_utf8_text(std::string_view text);

}  // namespace a3s::power::grammar::schema

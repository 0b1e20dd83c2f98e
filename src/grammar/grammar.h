// Grammars for constrained generation: a GBNF-style text format parsed into rules over Unicode code
// points (docs/grammar.md is the user documentation).
//
// Format:
//   rule-name ::= alternatives
//     A rule name is [a-zA-Z0-9-_]+. The start rule is `root`. A rule may be defined once, anywhere
//     in the text (a reference may come before the definition). Rules can span lines: a rule ends
//     where the next `name ::=` begins (or at the end of the text).
//   "literal"       the code points of the text, in order. Escapes: \" \' \\ \/ \n \r \t, \xHH,
//                   \uHHHH, \UHHHHHHHH (a Unicode scalar value: not a surrogate, at most U+10FFFF) and
//                   \[ \] \- \^. A literal ends on its own line ("\n" is written as an escape).
//   [a-z0-9_]       one code point from the listed characters and ranges; [^...] one code point NOT
//                   listed. The same escapes are allowed inside. A '-' is literal when it comes first
//                   or last. A class that matches nothing ([], or [^...] of every code point) is refused.
//   .               any code point.
//   name            a reference to the rule `name`.
//   ( ... )         a group (alternatives inside), nested at most kMaxNesting deep.
//   a b             sequence; a | b alternation (lowest precedence).
//   x* x+ x?        zero or more, one or more, zero or one.
//   x{m} x{m,} x{m,n}  exactly m, at least m, between m and n repetitions (bounds <= kMaxRepetition).
//   # comment       to the end of the line. Whitespace (spaces, tabs, newlines) separates items.
// A sentence of the grammar is the UTF-8 encoding of a code-point sequence that `root` matches
// (well-formed UTF-8 only: no overlong forms, no surrogates).
//
// Representation: every group and repetition is expanded into generated rules, so a rule is a list
// of alternatives and an alternative a sequence of elements: a character class (ranges of code
// points) or a rule reference. `x*` becomes R ::= x R | (empty), `x?` O ::= x | (empty), `x{m,n}`
// m copies of x followed by a chain of n-m nested optional rules.
//
// Checks (each refusal is Error(codes::kInvalidRequest), message "grammar:LINE:COLUMN: what is
// wrong"; LINE and COLUMN count from 1, COLUMN in code points): syntax (unterminated literal or
// class, bad escape, empty or reversed range, malformed repetition, unexpected character, invalid
// UTF-8); a rule defined twice; a reference to an undefined rule; no `root` rule; a rule that can
// match no finite text (every alternative needs itself again); `*`, `+` or `{m,}` on an item that
// can match the empty string (it could repeat forever); left recursion, direct or indirect and also
// through a prefix that can match the empty string (`a ::= b? a "x"`), which the matcher could not
// expand. Beyond the limits below: the text (over kMaxGrammarBytes), rules after expansion (over
// kMaxRules), elements after expansion (over kMaxElements), a bound over kMaxRepetition, groups
// nested deeper than kMaxNesting. A message never quotes the grammar text except a rule name (cut
// at 64 bytes): grammars come from requests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace a3s::power::grammar {

inline constexpr size_t kMaxGrammarBytes = 256 * 1024;
inline constexpr size_t kMaxRules = 4096;         // after expansion of groups and repetitions
inline constexpr size_t kMaxElements = 1u << 18;  // elements of every alternative, after expansion
inline constexpr uint32_t kMaxRepetition = 1000;  // m and n of {m}, {m,}, {m,n}
inline constexpr size_t kMaxNesting = 128;        // groups inside groups

// A set of Unicode scalar values (code points other than surrogates, up to U+10FFFF).
struct CharClass {
  // Sorted, disjoint and non-adjacent inclusive ranges; never empty; no surrogate inside.
  std::vector<std::pair<char32_t, char32_t>> ranges;
  // Bit c of the 128-bit map (ascii[c / 64] >> (c % 64)) is set when code point c < 128 is in the class.
  std::array<uint64_t, 2> ascii{};

  bool contains(char32_t c) const;
  // Some code point of [lo, hi] is in the class.
  bool intersects(char32_t lo, char32_t hi) const;
};

struct Element {
  enum class Kind : uint8_t {
    kEnd,   // ends an alternative
    kChar,  // one code point of classes[index]
    kRule,  // the rule rules[index]
  };
  Kind kind = Kind::kEnd;
  uint32_t index = 0;
};

struct Rule {
  // The name as written. A generated rule (a group or a repetition) carries the name of the rule it
  // was written in.
  std::string name;
  bool generated = false;
  // The first element of each alternative in Grammar::elements; the alternative runs to the next
  // kEnd element. An empty alternative is a lone kEnd.
  std::vector<uint32_t> alternatives;
};

// A grammar may come from a request (a schema's names and values are in its classes): its memory is
// zeroed when it is destroyed.
struct Grammar {
  Grammar() = default;
  Grammar(const Grammar&) = default;
  Grammar(Grammar&&) = default;
  Grammar& operator=(const Grammar&) = default;
  Grammar& operator=(Grammar&&) = default;
  ~Grammar();

  std::vector<Rule> rules;
  std::vector<Element> elements;
  std::vector<CharClass> classes;
  uint32_t root = 0;  // index of `root` in rules
  // Per rule: 1 when the rule can match the empty string.
  std::vector<uint8_t> nullable;

  // The user rule (not generated) of that name, or nullptr.
  const Rule* find_rule(std::string_view name) const;
};

// Parses and checks a grammar (format and errors above).
std::shared_ptr<const Grammar> parse_grammar(std::string_view text);

}  // namespace a3s::power::grammar

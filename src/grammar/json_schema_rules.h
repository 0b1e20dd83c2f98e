// The grammar the JSON Schema compiler builds (json_schema.h), before it is written out as text:
// rules whose alternatives are sequences of literals, code point classes and rule references, each
// with a repetition. render() removes what cannot match (a rule with no way to finish, e.g. a
// required property whose schema is `false`), refuses cycles that consume no input (left
// recursion), and writes the text. Internal to src/grammar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/json_schema_automata.h"

namespace a3s::power::grammar::schema {

inline constexpr uint32_t kUnbounded = UINT32_MAX;

struct Item {
  enum class Kind { kLiteral, kSet, kRule };
  Kind kind = Kind::kLiteral;
  std::string literal;  // UTF-8, never empty
  CodeSet set;
  int rule = -1;
  uint32_t min = 1;
  uint32_t max = 1;  // kUnbounded for * and +

  static Item lit(std::string text);
  static Item chars(CodeSet set);
  static Item ref(int rule);
  Item& times(uint32_t lo, uint32_t hi);
  Item& optional() { return times(0, 1); }
};

using Sequence = std::vector<Item>;

class Rules {
 public:
  // A new rule with no alternatives (the empty language until one is added). `name` is its name
  // when `fixed` (each fixed name once), otherwise the prefix of a numbered name.
  int add(std::string_view name, bool fixed = false);
  void add_alternative(int rule, Sequence seq);
  // A new rule whose one alternative is `seq`.
  int rule_of(std::string_view prefix, Sequence seq);
  size_t size() const { return rules_.size(); }

  // x repeated min..max times (max absent: unbounded), with every count in the text at most
  // kMaxRepetition (larger counts nest blocks of 1000). x must not match the empty string.
  Sequence repeat(const Item& x, uint64_t min, std::optional<uint64_t> max);

  // The grammar text with `root` as the rule "root". Throws Error(kInvalidRequest) when the root
  // matches nothing, when a cycle of rules consumes no input, when the text exceeds max_bytes, or
  // when parse_grammar would expand it past kMaxRules rules or kMaxElements elements (grammar.h).
  std::string render(int root, size_t max_bytes) const;

 private:
  Sequence exactly(const Item& x, uint64_t count);
  Sequence up_to(const Item& x, uint64_t count);
  Item block_of(const Item& x);

  struct Rule {
    std::string name;
    bool fixed = false;
    std::vector<Sequence> alts;
  };
  std::vector<Rule> rules_;
};

// A code point class in grammar syntax ([...] or [^...], whichever is shorter).
std::string class_text(const CodeSet& set);

}  // namespace a3s::power::grammar::schema

// ECMAScript regular expressions (the regular subset) as automata, for the JSON Schema keywords
// `pattern` and `format`. Internal to src/grammar; the compiler (json_schema.h) documents the subset.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "grammar/json_schema_automata.h"

namespace a3s::power::grammar::schema {

// Why a pattern was refused: `unsupported` for valid ECMAScript the subset leaves out (lookaround,
// backreferences, word boundaries, property escapes, anchors inside the expression, automata over
// the size budget), otherwise the text is not a valid ECMAScript pattern under the `u` flag. The
// detail never quotes the pattern; `offset` is the code point where it was noticed.
struct RegexError {
  bool unsupported = false;
  std::string detail;
  size_t offset = 0;
};

// The strings the pattern matches under JSON Schema's rules (ECMAScript with the `u` flag, a match
// anywhere in the string unless anchored by ^ at the start / $ at the end of a top-level
// alternative), as a minimal DFA over code points. Throws RegexError; max_states bounds every
// intermediate automaton.
Dfa pattern_dfa(std::string_view pattern_utf8, size_t max_states);

// The strings of a `format` the compiler enforces (date, time, date-time, uuid, email, ipv4), or
// nullopt for any other name.
std::optional<Dfa> format_dfa(std::string_view name);

}  // namespace a3s::power::grammar::schema

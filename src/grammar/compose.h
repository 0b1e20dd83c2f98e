// Building larger grammars from smaller ones: every rule name of a grammar's text given a prefix,
// so that several compiled grammars (one per tool's parameters, say) can be joined in one text with
// rules of the caller's own.
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::grammar {

// `text` (grammar.h format) with every rule name — in definitions and references — written
// `prefix` + name; literals, character classes, repetition bounds and comments are unchanged. The
// start rule becomes prefix + "root". `prefix` must be made of rule-name characters
// ([a-zA-Z0-9-_]); the result is checked when it is parsed.
std::string prefix_rule_names(std::string_view text, std::string_view prefix);

// `s` as a grammar literal: "…" with '"', '\\' and control characters escaped.
std::string grammar_literal(std::string_view s);

}  // namespace a3s::power::grammar

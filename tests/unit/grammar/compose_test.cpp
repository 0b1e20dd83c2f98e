// Composing grammars: rule names prefixed everywhere and nothing else touched; literals escaped.
#include "grammar/compose.h"

#include <gtest/gtest.h>

#include "grammar/grammar.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace a3s::power::grammar {
namespace {

TEST(GrammarCompose, PrefixesRuleNamesOnly) {
  const std::string text = "root ::= item (\"root, \\\"item\\\"\" item){0,3} # root item\nitem ::= [a-z_-]+ | \"x\"\n";
  EXPECT_EQ(prefix_rule_names(text, "t1-"),
            "t1-root ::= t1-item (\"root, \\\"item\\\"\" t1-item){0,3} # root item\nt1-item ::= [a-z_-]+ | \"x\"\n");
}

TEST(GrammarCompose, TwoSchemasJoinInOneGrammar) {
  const std::string a = json_schema_to_grammar(nlohmann::json::parse(R"({"type": "integer", "minimum": 0, "maximum": 9})"));
  const std::string b = json_schema_to_grammar(nlohmann::json::parse(R"({"enum": ["x", "y"]})"));
  const std::string joined = prefix_rule_names(a, "a-") + "\n" + prefix_rule_names(b, "b-") +
                             "\nroot ::= " + grammar_literal("a=") + " a-root | " + grammar_literal("b=") + " b-root\n";
  Matcher m(parse_grammar(joined));
  Matcher copy = m;
  EXPECT_TRUE(m.accept("a=7") && m.can_end());
  EXPECT_TRUE(copy.accept("b=\"y\"") && copy.can_end());
  EXPECT_FALSE(Matcher(parse_grammar(joined)).accept("a=\"x\""));
}

TEST(GrammarCompose, LiteralsEscapeQuotesBackslashesAndControls) {
  EXPECT_EQ(grammar_literal("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
  const std::string s = "say \"hi\"\\\n\x7f<｜tool▁sep｜>";
  Matcher m(parse_grammar("root ::= " + grammar_literal(s)));
  EXPECT_TRUE(m.accept(s) && m.can_end());
}

}  // namespace
}  // namespace a3s::power::grammar

// The grammar format: each syntax element, the expansion of repetitions, and every refusal (a
// message with line:column that never quotes the grammar text beyond a rule name).
#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "grammar/matcher.h"

namespace a3s::power::grammar {
namespace {

// Whether the grammar accepts exactly `text` as a complete sentence.
bool matches(const std::string& grammar, const std::string& text) {
  Matcher m(parse_grammar(grammar));
  return m.accept(text) && m.can_end();
}

// The message of the refusal of `grammar` (fails the test when it is accepted or refused otherwise).
std::string refusal(const std::string& grammar) {
  try {
    parse_grammar(grammar);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidRequest) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << grammar;
  return {};
}

TEST(GrammarParse, LiteralSequenceAndRoot) {
  auto g = parse_grammar("root ::= \"ab\" \"c\"");
  ASSERT_NE(g->find_rule("root"), nullptr);
  EXPECT_EQ(g->find_rule("nope"), nullptr);
  EXPECT_TRUE(matches("root ::= \"ab\" \"c\"", "abc"));
  EXPECT_FALSE(matches("root ::= \"ab\" \"c\"", "ab"));
  EXPECT_FALSE(matches("root ::= \"ab\" \"c\"", "abcd"));
}

TEST(GrammarParse, RuleReferencesInAnyOrderAndNameCharacters) {
  const std::string g = "root ::= Item_2-b x\nItem_2-b ::= \"i\"\nx ::= \"x\"";
  EXPECT_TRUE(matches(g, "ix"));
  EXPECT_FALSE(matches(g, "xi"));
}

TEST(GrammarParse, AlternationAndGroups) {
  const std::string g = "root ::= \"a\" (\"b\" | \"c\" \"d\") | \"e\"";
  EXPECT_TRUE(matches(g, "ab"));
  EXPECT_TRUE(matches(g, "acd"));
  EXPECT_TRUE(matches(g, "e"));
  EXPECT_FALSE(matches(g, "ac"));
  EXPECT_FALSE(matches(g, "ae"));
  EXPECT_FALSE(matches(g, "eb"));
}

TEST(GrammarParse, EmptyAlternativeAndEmptyLiteral) {
  EXPECT_TRUE(matches("root ::= \"a\" | ", ""));
  EXPECT_TRUE(matches("root ::= \"a\" | ", "a"));
  EXPECT_TRUE(matches("root ::= \"\"", ""));
  EXPECT_FALSE(matches("root ::= \"\"", "a"));
  EXPECT_TRUE(matches("root ::= ()", ""));
}

TEST(GrammarParse, CharacterClasses) {
  const std::string g = "root ::= [a-c_0-9]";
  for (std::string ok : {"a", "b", "c", "_", "0", "9"}) EXPECT_TRUE(matches(g, ok)) << ok;
  for (std::string bad : {"d", "A", "-", "ab", ""}) EXPECT_FALSE(matches(g, bad)) << bad;
  // A '-' first or last is literal.
  EXPECT_TRUE(matches("root ::= [-a]", "-"));
  EXPECT_TRUE(matches("root ::= [a-]", "-"));
  EXPECT_FALSE(matches("root ::= [a-]", "b"));
}

TEST(GrammarParse, NegatedClasses) {
  const std::string g = "root ::= [^\"\\\\a-c]";  // not a quote, a backslash, a, b or c
  EXPECT_TRUE(matches(g, "d"));
  EXPECT_TRUE(matches(g, "\xC3\xA9"));  // é
  EXPECT_TRUE(matches(g, "\n"));
  for (std::string bad : {"\"", "\\", "a", "b", "c"}) EXPECT_FALSE(matches(g, bad)) << bad;
}

TEST(GrammarParse, AnyCharacter) {
  const std::string g = "root ::= . \"!\"";
  EXPECT_TRUE(matches(g, "x!"));
  EXPECT_TRUE(matches(g, "\xE4\xB8\xAD!"));      // U+4E2D
  EXPECT_TRUE(matches(g, "\xF0\x9F\x98\x80!"));  // U+1F600
  EXPECT_FALSE(matches(g, "!"));
  EXPECT_FALSE(matches(g, "xy!"));
}

TEST(GrammarParse, EscapesInLiterals) {
  EXPECT_TRUE(matches(R"(root ::= "\"\\\n\r\t\/\'")", "\"\\\n\r\t/'"));
  EXPECT_TRUE(matches(R"(root ::= "\x41\u00e9\U0001F600")", "A\xC3\xA9\xF0\x9F\x98\x80"));
  EXPECT_TRUE(matches(R"(root ::= "\[\]\-\^")", "[]-^"));
}

TEST(GrammarParse, EscapesInClasses) {
  const std::string g = R"(root ::= [\]\-\\\x00-\x1F])";
  EXPECT_TRUE(matches(g, "]"));
  EXPECT_TRUE(matches(g, "-"));
  EXPECT_TRUE(matches(g, "\\"));
  EXPECT_TRUE(matches(g, std::string(1, '\0')));
  EXPECT_TRUE(matches(g, "\x1F"));
  EXPECT_FALSE(matches(g, " "));
  EXPECT_FALSE(matches(g, "x"));
  EXPECT_TRUE(matches(R"(root ::= [\u4e00-\u9fff])", "\xE4\xB8\xAD"));
  EXPECT_FALSE(matches(R"(root ::= [\u4e00-\u9fff])", "\xE3\x81\x82"));  // U+3042
}

TEST(GrammarParse, UnicodeInTheGrammarText) {
  EXPECT_TRUE(matches("root ::= \"h\xC3\xA9llo\" [\xE4\xB8\x80-\xE9\xBF\xBF]", "h\xC3\xA9llo\xE4\xB8\xAD"));
  EXPECT_FALSE(matches("root ::= \"h\xC3\xA9llo\"", "hello"));
}

TEST(GrammarParse, RepetitionOperators) {
  const std::string star = "root ::= \"a\"*";
  EXPECT_TRUE(matches(star, ""));
  EXPECT_TRUE(matches(star, "aaaa"));
  EXPECT_FALSE(matches(star, "ab"));
  const std::string plus = "root ::= \"ab\"+";
  EXPECT_FALSE(matches(plus, ""));
  EXPECT_TRUE(matches(plus, "ab"));
  EXPECT_TRUE(matches(plus, "ababab"));
  EXPECT_FALSE(matches(plus, "aba"));
  const std::string opt = "root ::= \"a\"? \"b\"";
  EXPECT_TRUE(matches(opt, "b"));
  EXPECT_TRUE(matches(opt, "ab"));
  EXPECT_FALSE(matches(opt, "aab"));
}

// {m}, {m,}, {m,n}: exactly the counts inside the bounds.
TEST(GrammarParse, BoundedRepetitionCounts) {
  struct Case {
    std::string op;
    size_t min, max;  // max SIZE_MAX: unbounded
  };
  for (const Case& c : {Case{"{3}", 3, 3}, Case{"{0}", 0, 0}, Case{"{2,}", 2, SIZE_MAX}, Case{"{2,5}", 2, 5},
                        Case{"{0,3}", 0, 3}, Case{"{ 1 , 2 }", 1, 2}}) {
    const std::string g = "root ::= [xy]" + c.op + " \"!\"";
    for (size_t n = 0; n <= 8; ++n) {
      const bool expected = n >= c.min && n <= c.max;
      EXPECT_EQ(matches(g, std::string(n, 'x') + "!"), expected) << c.op << " with " << n;
    }
  }
  // A group repeated, and a repetition of a repetition.
  EXPECT_TRUE(matches("root ::= (\"ab\" | \"c\"){2}", "abc"));
  EXPECT_FALSE(matches("root ::= (\"ab\" | \"c\"){2}", "ab"));
  EXPECT_TRUE(matches("root ::= (\"a\"{2}){3}", "aaaaaa"));
  EXPECT_FALSE(matches("root ::= (\"a\"{2}){3}", "aaaaa"));
  EXPECT_TRUE(matches("root ::= \"a\"{1000}", std::string(1000, 'a')));
  EXPECT_FALSE(matches("root ::= \"a\"{1000}", std::string(999, 'a')));
}

TEST(GrammarParse, CommentsAndRulesAcrossLines) {
  const std::string g =
      "# a comment before everything\n"
      "root ::= greeting   # trailing comment\n"
      "         name\n"
      "       | \"bye\"\n"
      "\n"
      "greeting ::=\n"
      "  \"hi \"  # the greeting\n"
      "name ::= [a-z]+\n";
  EXPECT_TRUE(matches(g, "hi bob"));
  EXPECT_TRUE(matches(g, "bye"));
  EXPECT_FALSE(matches(g, "hi "));
  EXPECT_FALSE(matches(g, "hi bob # the greeting"));
}

TEST(GrammarParse, RepetitionsShareGeneratedRules) {
  // The same repeated item shares its rules: 20 uses of [0-9]{0,50} cost 50 chain rules, not 1000.
  std::string g = "root ::= ";
  for (int i = 0; i < 20; ++i) g += "[0-9]{0,50} \",\" ";
  auto parsed = parse_grammar(g);
  EXPECT_LT(parsed->rules.size(), 60u);
  EXPECT_TRUE(matches(g, std::string(20, ',')));
}

TEST(GrammarParse, NullableIsComputed) {
  auto g = parse_grammar("root ::= a b\na ::= \"x\"?\nb ::= \"y\"");
  EXPECT_TRUE(g->nullable[g->find_rule("a") - g->rules.data()]);
  EXPECT_FALSE(g->nullable[g->find_rule("b") - g->rules.data()]);
  EXPECT_FALSE(g->nullable[g->root]);
}

TEST(GrammarParse, NonLeftRecursionIsAccepted) {
  // Right and middle recursion are fine; only left recursion is refused.
  const std::string g = "root ::= \"(\" root \")\" root | ";
  EXPECT_TRUE(matches(g, "(()())()"));
  EXPECT_FALSE(matches(g, "(()"));
  EXPECT_TRUE(matches("root ::= \"a\" root | \"b\"", "aaab"));
}

// ---- refusals ----

TEST(GrammarErrors, MessagesNameLineAndColumn) {
  EXPECT_EQ(refusal("root ::= \"a\"\nx ::= y"), "grammar:2:7: undefined rule 'y'");
  EXPECT_EQ(refusal("root ::= \"a\" |\n  \"b\" @"),
            "grammar:2:7: unexpected character (expected a literal, a class, '.', '(', or a rule name)");
  // Columns count code points, not bytes.
  EXPECT_EQ(refusal("root ::= \"\xC3\xA9\xC3\xA9\" \\"),
            "grammar:1:15: unexpected character (expected a literal, a class, '.', '(', or a rule name)");
}

TEST(GrammarErrors, EverySyntaxError) {
  struct Case {
    std::string grammar;
    std::string message;
  };
  const Case cases[] = {
      {"", "grammar:1:1: no rule named 'root' (the start rule)"},
      {"# only a comment\n", "grammar:1:1: no rule named 'root' (the start rule)"},
      {"main ::= \"a\"", "grammar:1:1: no rule named 'root' (the start rule)"},
      {"root ::= \"a\"\nroot ::= \"b\"", "grammar:2:1: rule 'root' is defined twice"},
      {"root ::= \"abc",
       "grammar:1:10: unterminated literal (a literal ends on its line; write a newline as \\n)"},
      {"root ::= \"ab\nc\"",
       "grammar:1:10: unterminated literal (a literal ends on its line; write a newline as \\n)"},
      {"root ::= [abc", "grammar:1:10: unterminated character class (expected ']')"},
      {"root ::= []", "grammar:1:10: character class matches no character"},
      {"root ::= [^\\x00-\\U0010FFFF]", "grammar:1:10: character class matches no character"},
      {"root ::= [z-a]", "grammar:1:11: character class range is reversed (its end comes before its start)"},
      {"root ::= \"\\q\"",
       "grammar:1:11: unknown escape sequence (allowed: \\\" \\' \\\\ \\/ \\n \\r \\t \\[ \\] \\- "
       "\\^ \\xHH \\uHHHH \\UHHHHHHHH)"},
      {"root ::= \"\\x4\"", "grammar:1:11: escape needs 2 hex digits"},
      {"root ::= \"\\u12g4\"", "grammar:1:11: escape needs 4 hex digits"},
      {"root ::= \"\\U00110000\"", "grammar:1:11: escape beyond U+10FFFF"},
      {"root ::= \"\\uD800\"",
       "grammar:1:11: escape names a surrogate code point (U+D800..U+DFFF), which is not a character"},
      {"root ::= \"\\", "grammar:1:11: unterminated escape sequence"},
      {"root ::= (\"a\" | \"b\"", "grammar:1:10: unclosed '(' (expected ')')"},
      {"root ::= (\"a\"\nx ::= \"b\")", "grammar:1:10: unclosed '(' (expected ')')"},
      {"root ::= \"a\")", "grammar:1:13: unmatched ')'"},
      {"root ::= * \"a\"", "grammar:1:10: a repetition operator needs an item before it"},
      {"root \"a\"", "grammar:1:6: expected '::=' after the rule name 'root'"},
      {"::= \"a\"", "grammar:1:1: expected a rule name ([a-zA-Z0-9-_]+) followed by '::='"},
      {"root ::= \"a\"{1001}", "grammar:1:13: repetition bound larger than 1000"},
      {"root ::= \"a\"{2,99999999999999999999}", "grammar:1:13: repetition bound larger than 1000"},
      {"root ::= \"a\"{3,2}", "grammar:1:13: repetition {m,n} with n smaller than m"},
      {"root ::= \"a\"{,2}", "grammar:1:14: expected a number in the repetition bounds"},
      {"root ::= \"a\"{2", "grammar:1:13: malformed repetition (expected {m}, {m,} or {m,n})"},
      {"root ::= \"a\"{2;}", "grammar:1:13: malformed repetition (expected {m}, {m,} or {m,n})"},
      {"root ::= \"\xFF\"", "grammar:1:11: invalid UTF-8 in the grammar text"},
      {"root ::= [\xC3]", "grammar:1:11: invalid UTF-8 in the grammar text"},
  };
  for (const Case& c : cases) EXPECT_EQ(refusal(c.grammar), c.message) << c.grammar;
}

TEST(GrammarErrors, RulesThatCannotFinish) {
  EXPECT_EQ(refusal("root ::= a\na ::= \"x\" a"),
            "grammar:2:1: rule 'a' cannot match any finite text (each alternative needs it again)");
  EXPECT_EQ(refusal("root ::= root \"x\""),
            "grammar:1:1: rule 'root' cannot match any finite text (each alternative needs it again)");
}

TEST(GrammarErrors, LeftRecursionIsRefused) {
  const std::string suffix = " is left-recursive (it can reach itself again before matching a character)";
  EXPECT_EQ(refusal("root ::= root \"x\" | \"y\""), "grammar:1:1: rule 'root'" + suffix);
  // Indirect.
  EXPECT_EQ(refusal("root ::= a\na ::= b \"x\" | \"y\"\nb ::= a \"z\" | \"w\""),
            "grammar:2:1: rule 'a'" + suffix);
  // Through a prefix that can match the empty string, also inside a group.
  EXPECT_EQ(refusal("root ::= \"y\" | b? root \"x\"\nb ::= \"b\""), "grammar:1:1: rule 'root'" + suffix);
  EXPECT_EQ(refusal("root ::= (e root | \"y\") \"x\"\ne ::= \"\" | \"e\""),
            "grammar:1:1: rule 'root'" + suffix);
}

TEST(GrammarErrors, RepeatingSomethingThatCanBeEmpty) {
  EXPECT_EQ(refusal("root ::= (\"a\"?)*"),
            "grammar:1:16: '*' repeats an item that can match the empty string (it could repeat forever)");
  EXPECT_EQ(refusal("root ::= x+\nx ::= \"a\" | "),
            "grammar:1:11: '+' repeats an item that can match the empty string (it could repeat forever)");
  EXPECT_EQ(refusal("root ::= \"\"{2,}"),
            "grammar:1:12: '{m,}' repeats an item that can match the empty string (it could repeat forever)");
  // Bounded repetition of something that can be empty is fine.
  EXPECT_TRUE(matches("root ::= (\"a\"?){0,3} \"b\"", "aab"));
}

TEST(GrammarErrors, Limits) {
  EXPECT_EQ(refusal("root ::= \"a\"\n# " + std::string(kMaxGrammarBytes, 'x')),
            "grammar:1:1: the grammar is larger than 256 KiB");
  EXPECT_EQ(refusal("root ::= " + std::string(129, '(') + "\"a\"" + std::string(129, ')')),
            "grammar:1:138: groups nested more than 128 deep");
  EXPECT_NO_THROW(parse_grammar("root ::= " + std::string(128, '(') + "\"a\"" + std::string(128, ')')));
  // More than 4096 rules: each distinct item repeated {0,1000} needs 1000 chain rules.
  const std::string many = "root ::= \"a\"{0,1000} \"b\"{0,1000} \"c\"{0,1000} \"d\"{0,1000} \"e\"{0,1000}";
  EXPECT_EQ(refusal(many), "grammar:1:61: more than 4096 rules after expanding groups and repetitions");
  // More than kMaxElements elements.
  std::string big = "root ::= ";
  for (int i = 0; i < 300; ++i) big += "\"a\"{1000}";
  EXPECT_EQ(refusal(big).substr(0, 9), "grammar:1");
  EXPECT_NE(refusal(big).find("elements after expanding repetitions"), std::string::npos);
}

TEST(GrammarErrors, MessagesNeverQuoteTheText) {
  // Secrets in literals, classes and comments never reach the message; a long rule name is cut.
  const std::string secret = "SECRET-VALUE-0123456789";
  for (const std::string& g :
       {"root ::= \"" + secret + "\" missing", "root ::= \"" + secret, "root ::= [" + secret,
        "root ::= \"" + secret + "\\q\"", "# " + secret + "\nroot ::= (\"" + secret + "\""}) {
    const std::string msg = refusal(g);
    EXPECT_EQ(msg.find("SECRET"), std::string::npos) << msg;
  }
  const std::string long_name(5000, 'n');
  const std::string msg = refusal("root ::= " + long_name);
  EXPECT_LT(msg.size(), 200u) << msg;
  EXPECT_NE(msg.find("undefined rule 'nnnn"), std::string::npos) << msg;
}

}  // namespace
}  // namespace a3s::power::grammar

// A full JSON grammar written in the format: valid documents are sentences, invalid ones are not
// (refused at the first wrong byte when no continuation can repair them).
#include <gtest/gtest.h>

#include <string>

#include "grammar/grammar.h"
#include "grammar/matcher.h"
#include "test_grammars.h"

namespace a3s::power::grammar {
namespace {

class GrammarJson : public testing::Test {
 protected:
  static void SetUpTestSuite() { json_ = parse_grammar(test::kJsonGrammar); }
  static bool complete(const std::string& doc) {
    Matcher m(json_);
    return m.accept(doc) && m.can_end();
  }
  // The length of the longest prefix the grammar accepts.
  static size_t accepted_prefix(const std::string& doc) {
    Matcher m(json_);
    size_t n = 0;
    while (n < doc.size() && m.accept(doc.substr(n, 1))) ++n;
    return n;
  }
  static inline std::shared_ptr<const Grammar> json_;
};

TEST_F(GrammarJson, AcceptsValidDocuments) {
  const std::string docs[] = {
      "{}",
      "[]",
      "0",
      "-0.0E-0",
      "12.5e+10",
      "true",
      "null",
      "\"\"",
      "  {\n\t\"a\" : [ 1 , 2 ] \r\n}  ",
      R"({"a": [1, -2.5e+10, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]})",
      R"({"nested": {"deeper": {"deepest": [[[]], {}]}}, "n": 0})",
      "\"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x98\x80 \xC3\xA9\"",  // raw UTF-8 in strings
      R"("\ud83d\ude00")",                                                   // escaped surrogate pair
      std::string(100, '[') + std::string(100, ']'),
  };
  for (const std::string& doc : docs) EXPECT_TRUE(complete(doc)) << doc;
}

TEST_F(GrammarJson, RefusesInvalidDocuments) {
  const std::string docs[] = {
      "",           "{",        "{\"a\"}",      "{\"a\":}", "[1,]",
      "[,1]",       "01",       "1.",           ".5",       "+1",
      "1e",         "-",        "tru",          "nul",      "'a'",
      "{\"a\":1,}", "[1 2]",    "{a:1}",        "\"\\x\"",  "\"\\u12\"",
      "\"a",        "\"\x01\"", "\"\xC0\x80\"", "{} {}",    "[\"a\" \"b\"]",
  };
  for (const std::string& doc : docs) EXPECT_FALSE(complete(doc)) << testing::PrintToString(doc);
}

TEST_F(GrammarJson, RefusesAtTheFirstWrongByte) {
  EXPECT_EQ(accepted_prefix("[1,]"), 3u);
  EXPECT_EQ(accepted_prefix("01"), 1u);
  EXPECT_EQ(accepted_prefix("{\"a\":1,}"), 7u);
  EXPECT_EQ(accepted_prefix("\"\\x\""), 2u);
  EXPECT_EQ(accepted_prefix("\"\x01\""), 1u);
  EXPECT_EQ(accepted_prefix("\"\xC0\x80\""), 1u);
  EXPECT_EQ(accepted_prefix("{} {}"), 3u);
  EXPECT_EQ(accepted_prefix("{a:1}"), 1u);
}

TEST_F(GrammarJson, EndAndFinishedAtTheTopLevel) {
  Matcher m(json_);
  ASSERT_TRUE(m.accept("{\"a\": \"\xE6"));  // inside a string, inside a character
  EXPECT_TRUE(m.has_pending_bytes());
  EXPECT_FALSE(m.can_end());
  ASSERT_TRUE(m.accept("\x97\xA5\"}"));
  EXPECT_TRUE(m.can_end());
  EXPECT_FALSE(m.finished());  // trailing whitespace may follow
  EXPECT_FALSE(m.can_accept("x"));
  EXPECT_TRUE(m.can_accept(" \n"));

  // With `root ::= object` the closing brace ends everything.
  std::string object_grammar = test::kJsonGrammar;
  const std::string root_line = "root    ::= ws value ws";
  object_grammar.replace(object_grammar.find(root_line), root_line.size(), "root    ::= object");
  auto g = parse_grammar(object_grammar);
  Matcher obj(g);
  ASSERT_TRUE(obj.accept("{\"a\": 12}"));
  EXPECT_TRUE(obj.finished());
  Matcher num(g);
  EXPECT_FALSE(num.can_accept("1"));
}

}  // namespace
}  // namespace a3s::power::grammar

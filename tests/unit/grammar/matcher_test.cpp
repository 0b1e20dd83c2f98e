// The matcher: UTF-8 fed in any pieces, refusals that keep the state, can_end / finished,
// ambiguity, the stack cap and the bounded cache.
#include "grammar/matcher.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "test_grammars.h"

namespace a3s::power::grammar {
namespace {

Matcher matcher(const std::string& g) {
  return Matcher(parse_grammar(g));
}

TEST(GrammarMatcher, NullGrammarIsRefused) {
  try {
    Matcher m(nullptr);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
}

TEST(GrammarMatcher, RefusalLeavesTheStateUnchanged) {
  Matcher m = matcher("root ::= \"abc\"");
  EXPECT_TRUE(m.accept("a"));
  EXPECT_FALSE(m.accept("bx"));  // 'b' would fit, 'x' does not: nothing of it is kept
  EXPECT_FALSE(m.accept("c"));
  EXPECT_TRUE(m.accept("b"));
  EXPECT_FALSE(m.can_end());
  EXPECT_TRUE(m.accept(""));
  EXPECT_TRUE(m.accept("c"));
  EXPECT_TRUE(m.can_end());
  EXPECT_FALSE(m.accept("c"));
}

TEST(GrammarMatcher, CanAcceptDoesNotChangeTheState) {
  Matcher m = matcher("root ::= \"ab\" | \"ac\"");
  EXPECT_TRUE(m.can_accept("ab"));
  EXPECT_TRUE(m.can_accept("ac"));
  EXPECT_FALSE(m.can_accept("ad"));
  EXPECT_FALSE(m.can_accept("abc"));
  EXPECT_TRUE(m.can_accept(""));
  EXPECT_EQ(m.stack_count(), 2u);  // still at the start: two alternatives
  EXPECT_TRUE(m.accept("a"));
  EXPECT_TRUE(m.can_accept("c"));
  EXPECT_FALSE(m.can_accept("a"));
}

TEST(GrammarMatcher, MultiByteCharactersByteByByteAndSplitAcrossCalls) {
  // U+00E9 (2 bytes), U+4E2D (3 bytes), U+1F600 (4 bytes).
  const std::string text = "\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80";
  const std::string g = "root ::= \"\xC3\xA9\" [\\u4e00-\\u9fff] [\\U0001F600-\\U0001F64F]";
  for (size_t cut1 = 0; cut1 <= text.size(); ++cut1) {
    for (size_t cut2 = cut1; cut2 <= text.size(); ++cut2) {
      Matcher m = matcher(g);
      ASSERT_TRUE(m.accept(text.substr(0, cut1)));
      ASSERT_TRUE(m.accept(text.substr(cut1, cut2 - cut1)));
      ASSERT_TRUE(m.accept(text.substr(cut2)));
      EXPECT_TRUE(m.can_end()) << cut1 << " " << cut2;
    }
  }
  Matcher m = matcher(g);
  for (size_t i = 0; i < text.size(); ++i) {
    ASSERT_TRUE(m.accept(text.substr(i, 1))) << i;
    const bool inside = i != 1 && i != 4 && i != 8;  // after the last byte of a character
    EXPECT_EQ(m.has_pending_bytes(), inside) << i;
    EXPECT_FALSE(m.can_end() && inside);
  }
  EXPECT_TRUE(m.finished());
}

TEST(GrammarMatcher, PartialCharacterOnlyWhenSomeCompletionFits) {
  Matcher m = matcher("root ::= [\\u4e00-\\u9fff]");
  EXPECT_TRUE(m.can_accept("\xE4"));       // U+4000..U+4FFF meets the class
  EXPECT_FALSE(m.can_accept("\xE3"));      // U+3000..U+3FFF does not
  EXPECT_TRUE(m.can_accept("\xE4\xB8"));   // U+4E00..U+4E3F
  EXPECT_FALSE(m.can_accept("\xE4\xB7"));  // U+4DC0..U+4DFF
  EXPECT_FALSE(m.can_accept("\xC3"));      // a 2-byte character is below U+0800
  EXPECT_FALSE(m.can_accept("a"));
  EXPECT_TRUE(m.accept("\xE9\xBF"));
  EXPECT_TRUE(m.has_pending_bytes());
  EXPECT_FALSE(m.can_end());
  EXPECT_TRUE(m.can_accept("\xBF"));  // U+9FFF
  EXPECT_FALSE(m.can_accept("a"));    // a partial character must be finished first
  EXPECT_TRUE(m.accept("\xBF"));
  EXPECT_TRUE(m.finished());
}

TEST(GrammarMatcher, InvalidUtf8IsNeverAccepted) {
  Matcher m = matcher("root ::= .*");
  EXPECT_TRUE(m.can_accept("\xC3\xA9\xF4\x8F\xBF\xBF"));  // é, U+10FFFF
  for (const std::string bad :
       {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xED\xA0\x80",
        "\xED\xBF\xBF", "\xF0\x80\x80\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF8", "\xFE", "\xFF",
        "\xC3"
        "a",
        "\xE4\xB8"
        "a"}) {
    EXPECT_FALSE(m.can_accept(bad)) << testing::PrintToString(bad);
  }
  // The refused prefixes stop exactly where the sequence goes wrong.
  EXPECT_TRUE(m.can_accept("\xE0"));
  EXPECT_FALSE(m.can_accept("\xE0\x80"));
  EXPECT_TRUE(m.can_accept("\xED\x9F"));   // U+D7C0..U+D7FF
  EXPECT_FALSE(m.can_accept("\xED\xA0"));  // surrogates
  EXPECT_TRUE(m.can_accept("\xF4\x8F"));
  EXPECT_FALSE(m.can_accept("\xF4\x90"));  // beyond U+10FFFF
}

TEST(GrammarMatcher, CanEndAndFinished) {
  Matcher m = matcher("root ::= \"a\" \"b\"?");
  EXPECT_FALSE(m.can_end());
  EXPECT_FALSE(m.finished());
  ASSERT_TRUE(m.accept("a"));
  EXPECT_TRUE(m.can_end());
  EXPECT_FALSE(m.finished());  // "b" may still come
  ASSERT_TRUE(m.accept("b"));
  EXPECT_TRUE(m.can_end());
  EXPECT_TRUE(m.finished());
  EXPECT_FALSE(m.can_accept("b"));

  Matcher empty = matcher("root ::= \"x\"?");
  EXPECT_TRUE(empty.can_end());
  EXPECT_FALSE(empty.finished());
  Matcher nothing = matcher("root ::= \"\"");
  EXPECT_TRUE(nothing.finished());
  EXPECT_FALSE(nothing.can_accept(" "));

  Matcher digits = matcher("root ::= [0-9]{1,3}");
  ASSERT_TRUE(digits.accept("12"));
  EXPECT_TRUE(digits.can_end());
  EXPECT_FALSE(digits.finished());
  ASSERT_TRUE(digits.accept("3"));
  EXPECT_TRUE(digits.finished());
}

TEST(GrammarMatcher, ResetAndCopiesAreIndependent) {
  Matcher m = matcher("root ::= \"ab\"");
  ASSERT_TRUE(m.accept("a"));
  Matcher copy = m;
  ASSERT_TRUE(copy.accept("b"));
  EXPECT_TRUE(copy.finished());
  EXPECT_FALSE(m.can_end());
  EXPECT_TRUE(m.can_accept("b"));
  m.reset();
  EXPECT_TRUE(m.can_accept("ab"));
  EXPECT_FALSE(m.can_accept("b"));
  Matcher assigned = matcher("root ::= \"z\"");
  assigned = copy;
  EXPECT_TRUE(assigned.finished());
  Matcher moved = std::move(assigned);
  EXPECT_TRUE(moved.finished());
}

TEST(GrammarMatcher, AlternationAmbiguity) {
  // Three alternatives begin with "a": three stacks, then the next character decides.
  Matcher m = matcher("root ::= \"a\" \"b\" | \"a\" \"c\" | \"a\" \"b\" \"d\"");
  ASSERT_TRUE(m.accept("a"));
  EXPECT_EQ(m.stack_count(), 3u);
  ASSERT_TRUE(m.accept("b"));
  EXPECT_EQ(m.stack_count(), 2u);  // complete, or "d" to come
  EXPECT_TRUE(m.can_end());
  EXPECT_FALSE(m.finished());
  ASSERT_TRUE(m.accept("d"));
  EXPECT_TRUE(m.finished());

  // Equal stacks reached along different paths are one: the count stays small however long.
  Matcher same = matcher("root ::= (\"a\" | \"a\" | x)*\nx ::= \"a\"");
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(same.accept("a"));
  EXPECT_LE(same.stack_count(), 4u);
  EXPECT_TRUE(same.can_end());
}

TEST(GrammarMatcher, StackCapThrowsAndKeepsTheState) {
  // Every "a" doubles the ways the text can close: 2^n distinct stacks after n characters.
  Matcher m = matcher("root ::= x\nx ::= \"a\" x \"b\" | \"a\" x \"c\" | \"\"");
  size_t accepted = 0;
  try {
    for (; accepted < 64; ++accepted) ASSERT_TRUE(m.accept("a"));
    FAIL() << "no cap";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  EXPECT_EQ(accepted, 10u);  // 3 * 2^10 = 3072 stacks; the 11th "a" would make 6144
  EXPECT_LE(m.stack_count(), kMaxStacks);
  // The state is still the one before the refused byte: closing is possible.
  EXPECT_TRUE(m.accept(std::string(accepted, 'b')));
  EXPECT_TRUE(m.can_end());
}

TEST(GrammarMatcher, DeepNestingAndTheBoundedCache) {
  // 300,000 open parentheses: the stack is 300,000 deep, and the cache passes its soft limit, so it
  // is rebuilt around the current state on the way.
  Matcher m = matcher("root ::= \"(\" root \")\" | \"x\"");
  const size_t depth = 300000;
  const std::string open(1000, '(');
  size_t peak = 0;
  for (size_t i = 0; i < depth / 1000; ++i) {
    ASSERT_TRUE(m.accept(open));
    peak = std::max(peak, m.cache_bytes());
  }
  EXPECT_GT(peak, kMatcherCacheSoftBytes);  // the test reached the limit ...
  EXPECT_LE(peak, kMatcherCacheBytes);
  ASSERT_TRUE(m.accept("x"));
  const std::string close(1000, ')');
  for (size_t i = 0; i < depth / 1000; ++i) {
    EXPECT_FALSE(m.finished());
    ASSERT_TRUE(m.accept(close)) << i;
    peak = std::max(peak, m.cache_bytes());
  }
  EXPECT_TRUE(m.finished());
  EXPECT_LE(peak, kMatcherCacheBytes);
  EXPECT_LT(m.cache_bytes(), peak);  // ... and was rebuilt smaller
}

TEST(GrammarMatcher, WholeAndPiecewiseInputAgree) {
  const std::string doc =
      "{\"k\xC3\xA9y\": [1, -2.5e+3, \"\xE4\xB8\xAD\xF0\x9F\x98\x80\", {\"a\": null}], \"b\": true}";
  auto g = parse_grammar(test::kJsonGrammar);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    Matcher m(g);
    size_t at = 0;
    while (at < doc.size()) {
      const size_t n = std::min(doc.size() - at, static_cast<size_t>(rng() % 5));
      ASSERT_TRUE(m.accept(doc.substr(at, n))) << at;
      at += n;
    }
    EXPECT_TRUE(m.can_end());
  }
}

}  // namespace
}  // namespace a3s::power::grammar

// The token mask: the trie's shape, and allowed_tokens equal to the brute-force oracle (a fresh copy
// of the matcher tested with can_accept, token by token) on random vocabularies and random states.
#include "grammar/token_mask.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "grammar/matcher.h"
#include "test_grammars.h"

namespace a3s::power::grammar {
namespace {

// For each token, a fresh copy of a matcher that has read `history` (built anew, so that no cached
// transition is shared with the matcher the mask walked) tests the token's bytes.
std::vector<uint8_t> oracle(const std::shared_ptr<const Grammar>& g, const std::string& history,
                            const std::vector<std::string>& tokens, const std::vector<uint8_t>& excluded) {
  Matcher replay(g);
  EXPECT_TRUE(replay.accept(history));
  std::vector<uint8_t> out(tokens.size(), 0);
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (tokens[id].empty() || excluded[id]) continue;
    Matcher fresh = replay;
    out[id] = fresh.can_accept(tokens[id]) ? 1 : 0;
  }
  return out;
}

// Pieces that make tokens: the grammars' punctuation and words, whole UTF-8 characters, pieces of
// them (leads, continuations, a lead with one continuation) and invalid sequences.
const std::vector<std::string> kPieces = {"{",
                                          "}",
                                          "[",
                                          "]",
                                          "\"",
                                          ":",
                                          ",",
                                          " ",
                                          "\n",
                                          "\t",
                                          "a",
                                          "b",
                                          "c",
                                          "e",
                                          "E",
                                          "t",
                                          "r",
                                          "u",
                                          "n",
                                          "l",
                                          "f",
                                          "s",
                                          "x",
                                          "z",
                                          "0",
                                          "1",
                                          "9",
                                          "-",
                                          "+",
                                          ".",
                                          "*",
                                          "/",
                                          "(",
                                          ")",
                                          "\\",
                                          "true",
                                          "null",
                                          "false",
                                          "\xC3\xA9",
                                          "\xC3",
                                          "\xA9",
                                          "\xE4\xB8\xAD",
                                          "\xE4",
                                          "\xB8",
                                          "\xAD",
                                          "\xE4\xB8",
                                          "\xE9\xBF\xBF",
                                          "\xF0\x9F\x98\x80",
                                          "\xF0\x9F",
                                          "\x98\x80",
                                          "\xFF",
                                          "\xC0\x80",
                                          "\xED\xA0\x80",
                                          "\x01"};

struct Vocabulary {
  std::vector<std::string> tokens;
  std::vector<uint8_t> excluded;
};

Vocabulary random_vocabulary(std::mt19937& rng, size_t n) {
  Vocabulary v;
  for (size_t i = 0; i < n; ++i) {
    std::string t;
    const unsigned kind = rng() % 20;
    if (kind == 0) {
      // empty: never allowed
    } else if (kind == 1 && !v.tokens.empty()) {
      t = v.tokens[rng() % v.tokens.size()];  // a duplicate of another token
    } else {
      const size_t parts = 1 + rng() % 4;
      for (size_t k = 0; k < parts; ++k) t += kPieces[rng() % kPieces.size()];
    }
    v.tokens.push_back(t);
    v.excluded.push_back(rng() % 25 == 0 ? 1 : 0);
  }
  return v;
}

TEST(GrammarTokenMask, TrieShape) {
  TokenTrie trie({"a", "ab", "abc", "b", "", "ab"});
  EXPECT_EQ(trie.token_count(), 6u);
  EXPECT_EQ(trie.node_count(), 5u);  // root, a, ab, abc, b
  EXPECT_EQ(trie.max_depth(), 3u);
  TokenTrie bytes({"\xFF", "\x80\xFF", std::string(1, '\0'), std::string(1, '\0') + "z"});
  EXPECT_EQ(bytes.node_count(), 6u);
  EXPECT_THROW(TokenTrie({"a", "b"}, std::vector<uint8_t>{0}), Error);
  EXPECT_EQ(TokenTrie({}).node_count(), 1u);
}

TEST(GrammarTokenMask, SmallExample) {
  Matcher m(parse_grammar("root ::= \"ab\" [0-9]* | \"b\""));
  const std::vector<std::string> tokens = {"a", "ab", "ab1", "abx", "b", "", "ab", "ba", "c", "a"};
  std::vector<uint8_t> excluded(tokens.size(), 0);
  excluded[9] = 1;
  TokenTrie trie(tokens, excluded);
  std::vector<uint8_t> allowed(3, 7);  // resized and overwritten
  allowed_tokens(m, trie, allowed);
  EXPECT_EQ(allowed, (std::vector<uint8_t>{1, 1, 1, 0, 1, 0, 1, 0, 0, 0}));
  ASSERT_TRUE(m.accept("ab"));
  allowed_tokens(m, trie, allowed);
  EXPECT_EQ(allowed, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  TokenTrie digits({"1", "12", "1a", "x"});
  allowed_tokens(m, digits, allowed);
  EXPECT_EQ(allowed, (std::vector<uint8_t>{1, 1, 0, 0}));
}

// The key check: on random vocabularies, along random generations (each step draws an allowed
// token), the mask equals the oracle at every step, for grammars with Unicode, partial characters,
// ambiguity, recursion and counted repetitions.
TEST(GrammarTokenMask, EqualsTheBruteForceOracle) {
  const std::string grammars[] = {
      test::kJsonGrammar,
      test::kExpressionGrammar,
      "root ::= ( [\\u4e00-\\u9fff] | [a-z] | \"\xC3\xA9\" | \" \" )+ \".\"?",
      "root ::= ( x | y | \"a\" )* \"z\"\nx ::= \"a\" \"b\"?\ny ::= \"a\" [a-c]",
      "root ::= [a-c]{2,5} ( \",\" [0-9]{1,3} )* ( \"\xF0\x9F\x98\x80\" | [^a-z,0-9] )?",
      "root ::= \"(\" root \")\" root | [^()]{0,2}",
  };
  std::mt19937 rng(20240611);
  size_t checks = 0, nonempty = 0;
  for (const std::string& text : grammars) {
    auto g = parse_grammar(text);
    for (int walk = 0; walk < 6; ++walk) {
      const Vocabulary v = random_vocabulary(rng, 150 + rng() % 150);
      const TokenTrie trie(v.tokens, v.excluded);
      Matcher m(g);
      std::string history;
      std::vector<uint8_t> allowed;
      for (int step = 0; step < 25; ++step) {
        allowed_tokens(m, trie, allowed);
        ASSERT_EQ(allowed, oracle(g, history, v.tokens, v.excluded))
            << text << " walk " << walk << " step " << step;
        ++checks;
        std::vector<size_t> ids;
        for (size_t id = 0; id < allowed.size(); ++id) {
          if (allowed[id]) ids.push_back(id);
        }
        if (ids.empty()) break;
        ++nonempty;
        const size_t pick = ids[rng() % ids.size()];
        ASSERT_TRUE(m.accept(v.tokens[pick]));
        history += v.tokens[pick];
      }
    }
  }
  EXPECT_GT(checks, 400u);
  EXPECT_GT(nonempty, 300u);
}

// A vocabulary of single bytes: the mask is exactly the set of bytes that can come next, including
// the continuation bytes of a pending character.
TEST(GrammarTokenMask, SingleBytesFollowTheUtf8State) {
  std::vector<std::string> bytes;
  for (int b = 0; b < 256; ++b) bytes.emplace_back(1, static_cast<char>(b));
  TokenTrie trie(bytes);
  Matcher m(parse_grammar("root ::= [\\u00e0-\\u00ff]"));
  std::vector<uint8_t> allowed;
  allowed_tokens(m, trie, allowed);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(allowed[b], b == 0xC3 ? 1 : 0) << b;
  ASSERT_TRUE(m.accept("\xC3"));
  allowed_tokens(m, trie, allowed);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(allowed[b], b >= 0xA0 && b <= 0xBF ? 1 : 0) << b;
}

// A large vocabulary against a single oracle copy (fresh per token would be slow here).
TEST(GrammarTokenMask, LargeVocabularyMatchesTheOracle) {
  std::mt19937 rng(99);
  const Vocabulary v = random_vocabulary(rng, 20000);
  const TokenTrie trie(v.tokens, v.excluded);
  auto g = parse_grammar(test::kJsonGrammar);
  Matcher m(g);
  std::vector<uint8_t> allowed;
  for (const std::string prefix : {"", "{\"a", "{\"a\": [1", "{\"a\": [1, tr", "{\"a\": \"\xE4"}) {
    Matcher at = m;
    ASSERT_TRUE(at.accept(prefix));
    allowed_tokens(at, trie, allowed);
    Matcher copy(g);  // a cache of its own
    ASSERT_TRUE(copy.accept(prefix));
    size_t n_allowed = 0;
    for (size_t id = 0; id < v.tokens.size(); ++id) {
      const bool expected = !v.tokens[id].empty() && !v.excluded[id] && copy.can_accept(v.tokens[id]);
      ASSERT_EQ(allowed[id] != 0, expected) << prefix << " token " << id;
      n_allowed += allowed[id];
    }
    EXPECT_GT(n_allowed, 0u) << prefix;
  }
}

TEST(GrammarTokenMask, CapErrorsPropagateAndKeepTheMatcher) {
  Matcher m(parse_grammar("root ::= x\nx ::= \"a\" x \"b\" | \"a\" x \"c\" | \"\""));
  TokenTrie trie({"a", std::string(20, 'a'), "b"});
  std::vector<uint8_t> allowed;
  try {
    allowed_tokens(m, trie, allowed);
    FAIL() << "no cap";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kResourceExhausted);
  }
  EXPECT_TRUE(m.can_end());
  EXPECT_TRUE(m.accept("a"));
}

}  // namespace
}  // namespace a3s::power::grammar

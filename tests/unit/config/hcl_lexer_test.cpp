#include "config/hcl_lexer.h"

#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::hcl {
namespace {

using K = Token::Kind;

std::vector<K> kinds(const std::vector<Token>& toks) {
  std::vector<K> k;
  for (const auto& t : toks) k.push_back(t.kind);
  return k;
}

TEST(HclLexer, PunctuationIdentifiersAndNewlines) {
  auto t = tokenize("a-b_1 = { } [ ] : , -\n", "f");
  EXPECT_EQ(kinds(t), (std::vector<K>{K::Ident, K::Equals, K::LBrace, K::RBrace, K::LBracket,
                                      K::RBracket, K::Colon, K::Comma, K::Minus, K::Newline, K::Eof}));
  EXPECT_EQ(t[0].text, "a-b_1");
}

TEST(HclLexer, PositionsAreOneBasedLineAndColumn) {
  auto t = tokenize("x = 1\n  yy = \"s\"\n", "dir/f.hcl");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].pos.str(), "dir/f.hcl:1:1");
  EXPECT_EQ(t[2].pos.str(), "dir/f.hcl:1:5");
  EXPECT_EQ(t[4].pos.str(), "dir/f.hcl:2:3");
  EXPECT_EQ(t[6].pos.str(), "dir/f.hcl:2:8");
}

TEST(HclLexer, CommentsOfAllThreeStylesAreSkipped) {
  auto t = tokenize("# hash\na = 1 // slashes\n/* block\n comment */ b = 2 # end", "f");
  EXPECT_EQ(kinds(t), (std::vector<K>{K::Newline, K::Ident, K::Equals, K::Number, K::Newline,
                                      K::Ident, K::Equals, K::Number, K::Eof}));
  EXPECT_EQ(t[5].text, "b");
  EXPECT_EQ(t[5].pos.line, 4);
  EXPECT_EQ(t[5].pos.col, 13);
}

TEST(HclLexer, StringEscapes) {
  auto t = tokenize(R"("a\nb\tc\"d\\e\r\u00e9\U0001F600\uD83D\uDE00$${x}%%{y}")", "f");
  ASSERT_EQ(t[0].kind, K::String);
  EXPECT_EQ(t[0].text, "a\nb\tc\"d\\e\r\xC3\xA9\xF0\x9F\x98\x80\xF0\x9F\x98\x80${x}%{y}");
}

TEST(HclLexer, LiteralDollarAndPercentWithoutBraceAreKept) {
  auto t = tokenize(R"("50% $5")", "f");
  EXPECT_EQ(t[0].text, "50% $5");
}

TEST(HclLexer, NumbersKeepTheirText) {
  auto t = tokenize("0 42 3.25 1e3 2.5E-2 7e+1", "f");
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t[0].text, "0");
  EXPECT_EQ(t[1].text, "42");
  EXPECT_EQ(t[2].text, "3.25");
  EXPECT_EQ(t[3].text, "1e3");
  EXPECT_EQ(t[4].text, "2.5E-2");
  EXPECT_EQ(t[5].text, "7e+1");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t[i].kind, K::Number);
}

TEST(HclLexer, Heredoc) {
  auto t = tokenize("x = <<EOT\nline one\n  line two\nEOT\ny = 1\n", "f");
  ASSERT_EQ(t[2].kind, K::String);
  EXPECT_EQ(t[2].text, "line one\n  line two\n");
  EXPECT_EQ(t[3].kind, K::Newline);
  EXPECT_EQ(t[4].text, "y");
  EXPECT_EQ(t[4].pos.line, 5);
}

TEST(HclLexer, IndentedHeredocStripsCommonIndent) {
  auto t = tokenize("x = <<-EOT\n    a\n      b\n\n    c\n    EOT\n", "f");
  ASSERT_EQ(t[2].kind, K::String);
  EXPECT_EQ(t[2].text, "a\n  b\n\nc\n");
}

TEST(HclLexer, CrLfLineEndings) {
  auto t = tokenize("a = 1\r\nb = \"x\"\r\n", "f");
  EXPECT_EQ(kinds(t), (std::vector<K>{K::Ident, K::Equals, K::Number, K::Newline, K::Ident, K::Equals,
                                      K::String, K::Newline, K::Eof}));
  EXPECT_EQ(t[4].pos.line, 2);
  EXPECT_EQ(t[4].pos.col, 1);
}

TEST(HclLexer, ByteOrderMarkIsSkipped) {
  auto t = tokenize("\xEF\xBB\xBFport = 1", "f");
  EXPECT_EQ(t[0].kind, K::Ident);
  EXPECT_EQ(t[0].text, "port");
}

TEST(HclLexer, NonAsciiUtf8InsideStringsIsKept) {
  auto t = tokenize("x = \"h\xC3\xA9llo \xE4\xB8\x96\"", "f");
  EXPECT_EQ(t[2].text, "h\xC3\xA9llo \xE4\xB8\x96");
}

TEST(HclLexer, EmptyInputIsJustEof) {
  auto t = tokenize("", "f");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kind, K::Eof);
  EXPECT_EQ(t[0].pos.str(), "f:1:1");
}

}  // namespace
}  // namespace a3s::power::config::hcl

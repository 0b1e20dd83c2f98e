// Parser errors: exact file:line:col, one line, and never the text of a value.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

TEST(HclErrors, UnterminatedStringPointsAtTheOpeningQuote) {
  EXPECT_EQ(parse_error("port = 1\nhost = \"127.0.0.1\n"), "c.hcl:2:8: unterminated string");
  EXPECT_EQ(parse_error("x = \"abc"), "c.hcl:1:5: unterminated string");
  EXPECT_EQ(parse_error("x = \"abc\\"), "c.hcl:1:5: unterminated string");
}

TEST(HclErrors, BadTokenPointsAtTheCharacter) {
  EXPECT_EQ(parse_error("a = 1\n  b = @\n"), "c.hcl:2:7: unexpected character '@'");
  EXPECT_EQ(parse_error("a = 1;\n"), "c.hcl:1:6: unexpected character ';'");
  EXPECT_EQ(parse_error("a = \x01"), "c.hcl:1:5: unexpected character (byte 0x01)");
}

TEST(HclErrors, MissingEqualsPointsAtTheTokenAfterTheKey) {
  EXPECT_EQ(parse_error("port 8080\n"), "c.hcl:1:6: expected '=' after 'port'");
  EXPECT_EQ(parse_error("a = 1\nhost \"0.0.0.0\"\n"), "c.hcl:2:6: expected '=' after 'host'");
  EXPECT_EQ(parse_error("threads\n"), "c.hcl:1:8: expected '=' after 'threads'");
  EXPECT_EQ(parse_error("m = { a 1 }"), "c.hcl:1:9: expected '=' or ':' after object key");
}

TEST(HclErrors, UnclosedBlockPointsAtItsOpeningBrace) {
  EXPECT_EQ(parse_error("api_key \"alice\" {\n  hash = \"x\"\n"),
            "c.hcl:1:17: unclosed block 'api_key' (missing '}')");
  EXPECT_EQ(parse_error("outer {\n  inner {\n    a = 1\n  }\n"),
            "c.hcl:1:7: unclosed block 'outer' (missing '}')");
  EXPECT_EQ(parse_error("outer {\n  inner {\n    a = 1\n}\n"),
            "c.hcl:1:7: unclosed block 'outer' (missing '}')");
}

TEST(HclErrors, UnclosedListAndObject) {
  EXPECT_EQ(parse_error("a = [1,\n 2\n"), "c.hcl:1:5: unclosed '[' (missing ']')");
  EXPECT_EQ(parse_error("a = [\n"), "c.hcl:1:5: unclosed '[' (missing ']')");
  EXPECT_EQ(parse_error("x = 1\na = { k = 1\n"), "c.hcl:2:5: unclosed '{' (missing '}')");
}

TEST(HclErrors, ListNeedsCommas) {
  EXPECT_EQ(parse_error("a = [1 2]"), "c.hcl:1:8: expected ',' or ']', found a number");
}

TEST(HclErrors, UnterminatedCommentAndHeredoc) {
  EXPECT_EQ(parse_error("a = 1\n  /* never closed\n"), "c.hcl:2:3: unterminated comment (missing '*/')");
  EXPECT_EQ(parse_error("a = <<EOT\ntext\n"), "c.hcl:1:5: unterminated heredoc (missing closing marker)");
  EXPECT_EQ(parse_error("a = <<EOT x\n"), "c.hcl:1:5: a heredoc marker must be followed by a newline");
  EXPECT_EQ(parse_error("a = << \n"), "c.hcl:1:5: expected a heredoc marker after '<<'");
}

TEST(HclErrors, InvalidEscapes) {
  EXPECT_EQ(parse_error("a = \"x\\qy\""), "c.hcl:1:7: invalid escape sequence");
  EXPECT_EQ(parse_error("a = \"\\u12\""), "c.hcl:1:6: invalid unicode escape (expected 4 hex digits)");
  EXPECT_EQ(parse_error("a = \"\\uD800\""), "c.hcl:1:6: unpaired surrogate in unicode escape");
  EXPECT_EQ(parse_error("a = \"\\uDC00\""), "c.hcl:1:6: invalid unicode escape (not a Unicode scalar value)");
  EXPECT_EQ(parse_error("a = \"\\U00110000\""),
            "c.hcl:1:6: invalid unicode escape (not a Unicode scalar value)");
}

TEST(HclErrors, TemplatesAreRefused) {
  EXPECT_EQ(parse_error("a = \"x${var}\""),
            "c.hcl:1:7: template sequences are not supported (write $${ or %%{ for a literal)");
  EXPECT_EQ(parse_error("a = \"%{ if x }\""),
            "c.hcl:1:6: template sequences are not supported (write $${ or %%{ for a literal)");
}

TEST(HclErrors, DuplicateAttributes) {
  EXPECT_EQ(parse_error("port = 1\n\nport = 2\n"), "c.hcl:3:1: duplicate key 'port' (first set at 1:1)");
  EXPECT_EQ(parse_error("b {\n  x = 1\n  x = 2\n}\n"), "c.hcl:3:3: duplicate key 'x' (first set at 2:3)");
  EXPECT_EQ(parse_error("m = { a = 1, \"a\" = 2 }"), "c.hcl:1:14: duplicate key 'a' (first set at 1:7)");
}

TEST(HclErrors, MalformedNumbers) {
  EXPECT_EQ(parse_error("a = 1."), "c.hcl:1:5: malformed number");
  EXPECT_EQ(parse_error("a = 1e"), "c.hcl:1:5: malformed number");
  EXPECT_EQ(parse_error("a = 12ab"), "c.hcl:1:5: malformed number");
  EXPECT_EQ(parse_error("a = 9223372036854775808"), "c.hcl:1:5: integer out of range");
  EXPECT_EQ(parse_error("a = -9223372036854775809"), "c.hcl:1:5: integer out of range");
  EXPECT_EQ(parse_error("a = 1e999"), "c.hcl:1:5: number out of range");
  EXPECT_EQ(parse_error("a = - x"), "c.hcl:1:7: expected a number after '-'");
}

TEST(HclErrors, ValuesMustBeLiterals) {
  EXPECT_EQ(parse_error("a = some_var"),
            "c.hcl:1:5: expected a value (strings must be quoted; variables are not supported)");
  EXPECT_EQ(parse_error("a =\n"), "c.hcl:1:4: expected a value, found end of line");
  EXPECT_EQ(parse_error("a = "), "c.hcl:1:5: expected a value, found end of file");
  EXPECT_EQ(parse_error("a = ]"), "c.hcl:1:5: expected a value, found ']'");
}

TEST(HclErrors, StructureErrors) {
  EXPECT_EQ(parse_error("a = 1 b = 2\n"), "c.hcl:1:7: expected a newline, found a name");
  EXPECT_EQ(parse_error("}\n"), "c.hcl:1:1: unexpected '}'");
  EXPECT_EQ(parse_error("= 1\n"), "c.hcl:1:1: expected a key or block name, found '='");
  EXPECT_EQ(parse_error("\"k\" = 1\n"), "c.hcl:1:1: expected a key or block name, found a string");
  EXPECT_EQ(parse_error("model \"a\"\n{\n}\n"),
            "c.hcl:2:1: the '{' of block 'model' must be on the same line as its name");
  EXPECT_EQ(parse_error("m = { [1] = 2 }"), "c.hcl:1:7: expected an object key, found '['");
  EXPECT_EQ(parse_error("m = { a = 1 b = 2 }"), "c.hcl:1:13: expected ',', a newline or '}', found a name");
}

TEST(HclErrors, InvalidUtf8) {
  EXPECT_EQ(parse_error("a = 1\nb = \"\xC3\x28\"\n"), "c.hcl:2:6: invalid UTF-8");
  EXPECT_EQ(parse_error("\xED\xA0\x80"), "c.hcl:1:1: invalid UTF-8");  // encoded surrogate
  EXPECT_EQ(parse_error("\xC0\xAF"), "c.hcl:1:1: invalid UTF-8");      // overlong
}

TEST(HclErrors, DeepNestingIsRefusedNotACrash) {
  std::string deep = "a = " + std::string(200, '[') + std::string(200, ']') + "\n";
  EXPECT_EQ(parse_error(deep), "c.hcl:1:69: nesting too deep");
  std::string blocks;
  for (int i = 0; i < 100; ++i) blocks += "b {\n";
  EXPECT_NE(parse_error(blocks).find("nesting too deep"), std::string::npos);
}

TEST(HclErrors, MessagesAreOneLineAndNeverEchoValues) {
  const std::vector<std::string> bad = {
      "api_keys = [sk-live-SECRET123]\n",            // unquoted secret
      "api_keys = [\"sk-live-SECRET123\"\n",         // unclosed list
      "api_keys = [\"sk-live-SECRET123\" \"x\"]\n",  // missing comma
      "key = \"sk-live-SECRET123\\q\"\n",            // bad escape
      "key = \"sk-live-SECRET123${x}\"\n",           // template
      "key = \"sk-live-SECRET123\n",                 // unterminated
      "key = \"sk-live-SECRET123\" extra\n",         // trailing token
      "m = { \"sk-live-SECRET123\" 1 }\n",           // missing separator
  };
  for (const auto& text : bad) {
    const std::string msg = parse_error(text);
    EXPECT_FALSE(msg.empty()) << text;
    EXPECT_EQ(msg.find("SECRET"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("c.hcl:1:", 0), 0u) << msg;
  }
}

}  // namespace
}  // namespace a3s::power::config::test

#include "base/json_string.h"

#include <gtest/gtest.h>

#include <string>

namespace a3s::power {
namespace {

std::string json_literal(std::string_view s) {
  std::string out = "prefix:";
  append_json_string(out, s);
  return out;
}

TEST(JsonString, AppendsBetweenQuotes) {
  EXPECT_EQ(json_literal(""), "prefix:\"\"");
  EXPECT_EQ(json_literal("abc"), "prefix:\"abc\"");
}

TEST(JsonString, EscapesQuoteBackslashAndTheNamedControls) {
  EXPECT_EQ(json_literal("\"\\"), "prefix:\"\\\"\\\\\"");
  EXPECT_EQ(json_literal("\b\t\n\f\r"), "prefix:\"\\b\\t\\n\\f\\r\"");
}

TEST(JsonString, OtherControlsAreLowercaseUnicodeEscapes) {
  EXPECT_EQ(json_literal(std::string("\x00\x01\x1f\x0b", 4)), "prefix:\"\\u0000\\u0001\\u001f\\u000b\"");
}

TEST(JsonString, DeleteAndNonAsciiBytesAreCopied) {
  EXPECT_EQ(json_literal("\x7f"), "prefix:\"\x7f\"");
  EXPECT_EQ(json_literal("\xc3\xa9\xe2\x80\xa8/"), "prefix:\"\xc3\xa9\xe2\x80\xa8/\"");
  EXPECT_EQ(json_literal("\xff"), "prefix:\"\xff\"");  // not validated
}

}  // namespace
}  // namespace a3s::power

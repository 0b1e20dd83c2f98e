#include "base/printable.h"
#include "base/percent_encode.h"

#include <gtest/gtest.h>

#include <string>

namespace a3s::power {
namespace {

TEST(PrintableName, ReplacesControlCharactersAndCuts) {
  EXPECT_EQ(printable_name("model.gguf"), "model.gguf");
  EXPECT_EQ(printable_name("a\nb\tc\x7f" "d"), "a?b?c?d");
  EXPECT_EQ(printable_name(std::string("a\0b", 3)), "a?b");
  EXPECT_EQ(printable_name("caf\xC3\xA9"), "caf\xC3\xA9");  // UTF-8 text is kept
  EXPECT_EQ(printable_name(std::string(300, 'x')).size(), 256u);
  EXPECT_EQ(printable_name("abcdef", 3), "abc");
  EXPECT_EQ(printable_name("abc", 0), "");
}

TEST(Printable, BelowSpaceKeepsDel) {
  PrintableStyle style;
  style.unprintable = Unprintable::kBelowSpace;
  EXPECT_EQ(printable("a\x1f\x7f", style), "a?\x7f");
}

TEST(Printable, NonAsciiAndExtraCharacters) {
  PrintableStyle style;
  style.max_bytes = 32;
  style.unprintable = Unprintable::kNonAscii;
  style.also_unprintable = "\"\\";
  EXPECT_EQ(printable("av\"x\\2\xC3\xA9\x7f~", style), "av?x?2???~");
  EXPECT_EQ(printable(std::string(40, 'a'), style), std::string(32, 'a'));
}

TEST(Printable, HexEscapesWithACutMark) {
  PrintableStyle style;
  style.max_bytes = 8;
  style.unprintable = Unprintable::kNonAscii;
  style.also_unprintable = "\\";
  style.hex_escape = true;
  style.mark_cut = true;
  EXPECT_EQ(printable("a\\b\n", style), "a\\x5cb\\x0a");
  EXPECT_EQ(printable("abcdefgh", style), "abcdefgh");         // exactly the limit: nothing left out
  EXPECT_EQ(printable("abcdefghi", style), "abcdefgh...");
  EXPECT_EQ(printable("abcdefg\xff" "z", style), "abcdefg\\xff...");  // an escape begun below the limit
}

TEST(PercentEncode, UnreservedByDefault) {
  EXPECT_EQ(percent_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(percent_encode("a b/c?d&e=%"), "a%20b%2Fc%3Fd%26e%3D%25");
  EXPECT_EQ(percent_encode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(percent_encode(std::string("\0", 1)), "%00");
  EXPECT_EQ(percent_encode(""), "");
}

TEST(PercentEncode, CallerChoosesThePlainPunctuation) {
  EXPECT_EQ(percent_encode("llama-3.2_x~y", "._"), "llama%2D3.2_x%7Ey");
  EXPECT_EQ(percent_encode(std::string("a\0b", 3), std::string("\0", 1)), "a%00b");  // NUL never kept
}

}  // namespace
}  // namespace a3s::power

namespace a3s::power {
namespace {

TEST(PercentDecode, DecodesEscapesOfEitherCase) {
  EXPECT_EQ(percent_decode("a%20b%2f%2F+c"), "a b//+c");  // '+' is not a space here
  EXPECT_EQ(percent_decode(""), "");
  EXPECT_EQ(percent_encode(*percent_decode("%C3%A9")), "%C3%A9");
}

TEST(PercentDecode, RejectsMalformedEscapes) {
  EXPECT_FALSE(percent_decode("%"));
  EXPECT_FALSE(percent_decode("%4"));
  EXPECT_FALSE(percent_decode("ab%4"));
  EXPECT_FALSE(percent_decode("%zz"));
  EXPECT_FALSE(percent_decode("%4g"));
}

TEST(PercentDecode, NulEscapeOnlyWhenAllowed) {
  EXPECT_EQ(percent_decode("a%00b"), std::string("a\0b", 3));
  EXPECT_FALSE(percent_decode("a%00b", /*reject_nul=*/true));
  EXPECT_EQ(percent_decode(std::string("a\0b", 3), /*reject_nul=*/true), std::string("a\0b", 3));  // raw bytes pass
}

}  // namespace
}  // namespace a3s::power

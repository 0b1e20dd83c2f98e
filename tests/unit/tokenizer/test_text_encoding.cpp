// UTF-8 decoding/validation and the GPT-2 byte-level alphabet.
#include <gtest/gtest.h>

#include <set>

#include "tokenizer/byte_encoding.h"
#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace {

TEST(Utf8, LenientDecodeReplacesEachBadByte) {
  EXPECT_EQ(decode_utf8_lenient("a\xC3\xA9"), (std::vector<uint32_t>{'a', 0xE9}));
  EXPECT_EQ(decode_utf8_lenient("\xF0\x9F\xA6\x99"), (std::vector<uint32_t>{0x1F999}));
  // Truncated sequence: the lead byte and the continuation byte each become U+FFFD.
  EXPECT_EQ(decode_utf8_lenient("\xE4\xB8"), (std::vector<uint32_t>{0xFFFD, 0xFFFD}));
  EXPECT_EQ(decode_utf8_lenient("\xFF" "a"), (std::vector<uint32_t>{0xFFFD, 'a'}));
  EXPECT_TRUE(decode_utf8_lenient("").empty());
}

TEST(Utf8, EncodeRoundTripsAndClampsOutOfRange) {
  for (uint32_t cp : {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x10FFFFu}) {
    std::string s;
    append_utf8(s, cp);
    EXPECT_EQ(decode_utf8_lenient(s), std::vector<uint32_t>{cp}) << cp;
  }
  std::string s;
  append_utf8(s, 0x110000);
  EXPECT_EQ(s, "\xEF\xBF\xBD");
}

TEST(Utf8, StrictScan) {
  auto scan = [](std::string_view s) {
    const Utf8Scan r = scan_utf8(s);
    return std::tuple(r.valid, r.invalid, r.incomplete);
  };
  EXPECT_EQ(scan("abc"), std::tuple(size_t{3}, size_t{0}, false));
  EXPECT_EQ(scan("a\xE4\xB8"), std::tuple(size_t{1}, size_t{0}, true));
  EXPECT_EQ(scan("a\xC0\x80"), std::tuple(size_t{1}, size_t{1}, false));          // overlong lead
  EXPECT_EQ(scan("\xE0\x80\x80"), std::tuple(size_t{0}, size_t{1}, false));       // overlong 3-byte
  EXPECT_EQ(scan("\xF4\x90\x80\x80"), std::tuple(size_t{0}, size_t{1}, false));   // above U+10FFFF
  EXPECT_EQ(scan("\xE4\xB8" "x"), std::tuple(size_t{0}, size_t{2}, false));       // broken sequence
}

TEST(Utf8, WhiteSpaceProperty) {
  for (uint32_t cp : {0x09u, 0x0Au, 0x0Du, 0x20u, 0x85u, 0xA0u, 0x2003u, 0x3000u}) EXPECT_TRUE(is_unicode_whitespace(cp));
  for (uint32_t cp : {0x08u, 0x41u, 0x200Bu, 0x180Eu, 0xFEFFu}) EXPECT_FALSE(is_unicode_whitespace(cp));
}

TEST(ByteEncoding, Gpt2Alphabet) {
  EXPECT_EQ(byte_to_codepoint(' '), 0x120u);   // 'Ġ'
  EXPECT_EQ(byte_to_codepoint('\n'), 0x10Au);  // 'Ċ'
  EXPECT_EQ(byte_to_codepoint('A'), uint32_t('A'));
  EXPECT_EQ(byte_to_codepoint(0xAD), 0x143u);
  std::set<uint32_t> seen;
  for (int b = 0; b < 256; ++b) {
    const uint32_t cp = byte_to_codepoint(static_cast<uint8_t>(b));
    EXPECT_TRUE(seen.insert(cp).second) << b;
    EXPECT_EQ(codepoint_to_byte(cp), std::optional<uint8_t>(static_cast<uint8_t>(b)));
  }
  EXPECT_EQ(codepoint_to_byte(0x4E16), std::nullopt);
}

TEST(ByteEncoding, RoundTripAllBytes) {
  std::string raw;
  for (int b = 0; b < 256; ++b) raw.push_back(static_cast<char>(b));
  EXPECT_EQ(byte_decode(byte_encode(raw)), raw);
  EXPECT_EQ(byte_encode(" hi\n"), "\xC4\xA0hi\xC4\x8A");
  // Characters outside the alphabet (added tokens stored verbatim) pass through.
  EXPECT_EQ(byte_decode("\xE4\xB8\x96"), "\xE4\xB8\x96");
}

}  // namespace
}  // namespace a3s::power::tok

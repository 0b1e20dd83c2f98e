#include "base/hex.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

TEST(Hex, EncodesLowercaseInByteOrder) {
  const std::vector<uint8_t> bytes = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
  EXPECT_EQ(to_hex(bytes), "00017f80abff");
  EXPECT_EQ(to_hex(std::span<const uint8_t>{}), "");
}

TEST(Hex, EncodesIntoACallerBuffer) {
  const std::array<uint8_t, 2> bytes = {0xde, 0xad};
  std::array<char, 4> out{};
  to_hex(bytes, out);
  EXPECT_EQ(std::string(out.data(), out.size()), "dead");
}

TEST(Hex, BufferOfTheWrongSizeIsAnInternalError) {
  const std::array<uint8_t, 2> bytes = {0xde, 0xad};
  std::array<char, 3> small{};
  try {
    to_hex(bytes, small);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInternal);
  }
}

TEST(Hex, DigitValues) {
  EXPECT_EQ(hex_digit_value('0'), 0);
  EXPECT_EQ(hex_digit_value('9'), 9);
  EXPECT_EQ(hex_digit_value('a'), 10);
  EXPECT_EQ(hex_digit_value('F'), 15);
  for (char c : std::string("gG/:@`xX \n-+")) EXPECT_EQ(hex_digit_value(c), -1) << c;
  EXPECT_EQ(hex_digit_value('\0'), -1);
  EXPECT_EQ(hex_digit_value(static_cast<char>(0xb0)), -1);
}

TEST(Hex, DecodesExactLengthEitherCase) {
  std::array<uint8_t, 3> out{};
  ASSERT_TRUE(decode_hex("aBcD0f", out));
  EXPECT_EQ(out, (std::array<uint8_t, 3>{0xab, 0xcd, 0x0f}));
}

TEST(Hex, ExactDecodeRejectsWrongLengthAndZeroesTheOutput) {
  std::array<uint8_t, 2> out = {1, 2};
  EXPECT_FALSE(decode_hex("abc", out));  // odd length
  EXPECT_EQ(out, (std::array<uint8_t, 2>{0, 0}));
  out = {1, 2};
  EXPECT_FALSE(decode_hex("abcdef", out));  // too long
  EXPECT_EQ(out, (std::array<uint8_t, 2>{0, 0}));
  EXPECT_FALSE(decode_hex("ab", out));  // too short
}

TEST(Hex, ExactDecodeRejectsNonHexAndLeavesNoPartialBytes) {
  std::array<uint8_t, 2> out{};
  EXPECT_FALSE(decode_hex("abzz", out));
  EXPECT_EQ(out, (std::array<uint8_t, 2>{0, 0}));  // the decoded 0xab is not left behind
  EXPECT_FALSE(decode_hex("ab c", out));
  EXPECT_FALSE(decode_hex("0xab", out));
  EXPECT_FALSE(decode_hex(std::string("ab\0d", 4), out));
}

TEST(Hex, DecodesAnyEvenLength) {
  EXPECT_EQ(decode_hex(""), std::vector<uint8_t>{});
  EXPECT_EQ(decode_hex("00FFa5"), (std::vector<uint8_t>{0x00, 0xff, 0xa5}));
  EXPECT_FALSE(decode_hex("0"));
  EXPECT_FALSE(decode_hex("abc"));
  EXPECT_FALSE(decode_hex("gg"));
  EXPECT_FALSE(decode_hex("ab\n"));
}

TEST(Hex, RoundTrips) {
  std::vector<uint8_t> all(256);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint8_t>(i);
  EXPECT_EQ(decode_hex(to_hex(all)), all);
}

}  // namespace
}  // namespace a3s::power

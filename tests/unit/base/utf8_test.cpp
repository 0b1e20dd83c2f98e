#include "base/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace a3s::power {
namespace {

Utf8Char strict(const std::string& s, size_t pos = 0) { return decode_utf8(s, pos); }
Utf8Char shape(const std::string& s, size_t pos = 0) { return decode_utf8(s, pos, Utf8Rules::kShapeOnly); }

void expect_ok(const Utf8Char& c, char32_t cp, size_t len) {
  EXPECT_EQ(c.status, Utf8Status::kOk);
  EXPECT_EQ(c.code_point, cp);
  EXPECT_EQ(c.length, len);
}
void expect_status(const Utf8Char& c, Utf8Status status, size_t len) {
  EXPECT_EQ(c.status, status);
  EXPECT_EQ(c.length, len);
}

TEST(Utf8, DecodesEveryLength) {
  expect_ok(strict("A"), U'A', 1);
  expect_ok(strict("\xC3\xA9"), 0xE9, 2);          // é
  expect_ok(strict("\xE2\x82\xAC"), 0x20AC, 3);    // €
  expect_ok(strict("\xF0\x9F\x98\x80"), 0x1F600, 4);
  expect_ok(strict("\xF4\x8F\xBF\xBF"), 0x10FFFF, 4);
  expect_ok(strict(std::string(1, '\0')), 0, 1);
}

TEST(Utf8, DecodesAtAnOffset) {
  const std::string s = "a\xE2\x82\xAC" "b";
  expect_ok(strict(s, 1), 0x20AC, 3);
  expect_ok(strict(s, 4), U'b', 1);
  expect_status(strict(s, 5), Utf8Status::kTruncated, 0);  // at the end
  expect_status(strict(s, 99), Utf8Status::kTruncated, 0);
}

TEST(Utf8, StrayAndImpossibleLeadBytesAreInvalid) {
  for (int b : {0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xF8, 0xFF}) {
    expect_status(strict(std::string(1, static_cast<char>(b)) + "\x80\x80\x80"), Utf8Status::kInvalid, 1);
  }
}

TEST(Utf8, OverlongFormsAreInvalidUnderStrictRules) {
  expect_status(strict("\xC0\xAF"), Utf8Status::kInvalid, 1);          // '/' in two bytes
  expect_status(strict("\xE0\x80\xAF"), Utf8Status::kInvalid, 1);      // in three bytes
  expect_status(strict("\xF0\x80\x80\xAF"), Utf8Status::kInvalid, 1);  // in four bytes
}

TEST(Utf8, SurrogatesAndValuesAbove10FFFFAreInvalidUnderStrictRules) {
  expect_status(strict("\xED\xA0\x80"), Utf8Status::kInvalid, 1);      // U+D800
  expect_status(strict("\xED\xBF\xBF"), Utf8Status::kInvalid, 1);      // U+DFFF
  expect_ok(strict("\xED\x9F\xBF"), 0xD7FF, 3);
  expect_status(strict("\xF4\x90\x80\x80"), Utf8Status::kInvalid, 1);  // U+110000
}

TEST(Utf8, BadContinuationGivesTheMaximalSubpart) {
  expect_status(strict("\xC3" "A"), Utf8Status::kInvalid, 1);
  expect_status(strict("\xE2\x82" "A"), Utf8Status::kInvalid, 2);
  expect_status(strict("\xF0\x9F\x98" "A"), Utf8Status::kInvalid, 3);
}

TEST(Utf8, TruncatedSequencesAreReportedAsSuch) {
  expect_status(strict("\xC3"), Utf8Status::kTruncated, 1);
  expect_status(strict("\xE2\x82"), Utf8Status::kTruncated, 2);
  expect_status(strict("\xF0\x9F\x98"), Utf8Status::kTruncated, 3);
  // A prefix that is already wrong is invalid, not truncated.
  expect_status(strict("\xE0\x80"), Utf8Status::kInvalid, 1);
}

TEST(Utf8, ShapeOnlyRulesAcceptOverlongFormsAndSurrogates) {
  expect_ok(shape("\xC0\x80"), 0, 2);
  expect_ok(shape("\xE0\x80\xAF"), 0x2F, 3);
  expect_ok(shape("\xED\xA0\x80"), 0xD800, 3);
  expect_ok(shape("\xF7\xBF\xBF\xBF"), 0x1FFFFF, 4);
  expect_ok(shape("\xE2\x82\xAC"), 0x20AC, 3);
}

TEST(Utf8, ShapeOnlyRulesRejectBadShapesOneByteAtATime) {
  expect_status(shape("\x80"), Utf8Status::kInvalid, 1);
  expect_status(shape("\xF8\x80\x80\x80\x80"), Utf8Status::kInvalid, 1);
  expect_status(shape("\xE2\x82" "A"), Utf8Status::kInvalid, 1);
  expect_status(shape("\xE2" "AB"), Utf8Status::kInvalid, 1);
}

TEST(Utf8, ShapeOnlyTruncationIsDecidedByTheAnnouncedLength) {
  expect_status(shape("\xE2\x82"), Utf8Status::kTruncated, 2);
  expect_status(shape("\xE2" "A"), Utf8Status::kTruncated, 2);  // whatever the bytes before the end
  expect_status(shape("\xC0"), Utf8Status::kTruncated, 1);
}

TEST(Utf8, EncodesEveryLengthAndDecodesBack) {
  for (char32_t cp : {char32_t{0x24}, char32_t{0x7F}, char32_t{0x80}, char32_t{0xE9}, char32_t{0x7FF},
                      char32_t{0x800}, char32_t{0x20AC}, char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x1F999},
                      char32_t{0x10FFFF}}) {
    std::string s;
    append_utf8(s, cp);
    const Utf8Char c = strict(s);
    EXPECT_EQ(c.status, Utf8Status::kOk) << static_cast<uint32_t>(cp);
    EXPECT_EQ(c.code_point, cp);
    EXPECT_EQ(c.length, s.size());
  }
  std::string beyond;
  append_utf8(beyond, char32_t{0x110000});
  EXPECT_EQ(beyond, "\xEF\xBF\xBD");  // U+FFFD
}

}  // namespace
}  // namespace a3s::power

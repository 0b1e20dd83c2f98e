#include "base/utf8.h"

namespace a3s::power {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

Utf8Char decode_shape_only(std::string_view s, size_t pos) {
  const auto b0 = static_cast<uint8_t>(s[pos]);
  size_t len;
  char32_t cp;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return {Utf8Status::kInvalid, 0, 1};  // a continuation byte or F8..FF as a lead
  }
  if (s.size() - pos < len) return {Utf8Status::kTruncated, 0, s.size() - pos};
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[pos + k]);
    if (!is_continuation(b)) return {Utf8Status::kInvalid, 0, 1};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {Utf8Status::kOk, cp, len};
}

// Table 3-7 of the Unicode standard (well-formed UTF-8 byte sequences).
Utf8Char decode_strict(std::string_view s, size_t pos) {
  const auto b0 = static_cast<uint8_t>(s[pos]);
  size_t len;
  char32_t cp;
  uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {Utf8Status::kInvalid, 0, 1};  // a continuation byte, C0, C1 or F5..FF as a lead
  }
  size_t k = 1;
  for (; k < len && pos + k < s.size(); ++k) {
    const auto b = static_cast<uint8_t>(s[pos + k]);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : is_continuation(b);
    if (!ok) return {Utf8Status::kInvalid, 0, k};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (k < len) return {Utf8Status::kTruncated, 0, k};
  return {Utf8Status::kOk, cp, len};
}

}  // namespace

Utf8Char decode_utf8(std::string_view s, size_t pos, Utf8Rules rules) {
  if (pos >= s.size()) return {Utf8Status::kTruncated, 0, 0};
  const auto b0 = static_cast<uint8_t>(s[pos]);
  if (b0 < 0x80) return {Utf8Status::kOk, b0, 1};
  return rules == Utf8Rules::kStrict ? decode_strict(s, pos) : decode_shape_only(s, pos);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace a3s::power

// Minimal UTF-8 decoding for chat template text (RFC 3629). Invalid or truncated sequences decode
// one byte at a time as kInvalid so that callers can copy them through unchanged.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace a3s::power::chat::utf8 {

inline constexpr char32_t kInvalid = 0x110000;

// The code point at the start of s and its length in bytes (1 for an invalid byte; 0 for empty s).
inline std::pair<char32_t, std::size_t> decode(std::string_view s) {
  if (s.empty()) return {kInvalid, 0};
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) return {b0, 1};
  std::size_t len = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    cp = b0 & 0x1f;
    min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    cp = b0 & 0x0f;
    min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return {kInvalid, 1};
  }
  if (s.size() < len) return {kInvalid, 1};
  for (std::size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xc0) != 0x80) return {kInvalid, 1};
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {kInvalid, 1};
  return {cp, len};
}

// Calls f(code_point, bytes) for every code point of s.
template <typename F>
void for_each(std::string_view s, F&& f) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto [cp, len] = decode(s.substr(i));
    f(cp, s.substr(i, len));
    i += len;
  }
}

}  // namespace a3s::power::chat::utf8

// UTF-8 decoding for chat template text (RFC 3629, base/utf8.h). Invalid or truncated sequences
// decode one byte at a time as kInvalid so that callers can copy them through unchanged.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include "base/utf8.h"

namespace a3s::power::chat::utf8 {

inline constexpr char32_t kInvalid = 0x110000;

// The code point at the start of s and its length in bytes (1 for an invalid byte; 0 for empty s).
inline std::pair<char32_t, std::size_t> decode(std::string_view s) {
  if (s.empty()) return {kInvalid, 0};
  const Utf8Char c = decode_utf8(s, 0);
  if (c.status != Utf8Status::kOk) return {kInvalid, 1};
  return {c.code_point, c.length};
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

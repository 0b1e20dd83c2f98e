// Hex values given on the command line (--expected-measurement, --expected-report-data).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::verify::cli {

// Decodes exactly `size` bytes from 2*size hex digits (either case, no prefix, no separators).
// Throws a3s::power::Error "invalid_argument" naming `flag` and the expected length; the value itself
// is not echoed.
std::vector<uint8_t> parse_hex(std::string_view text, size_t size, const std::string& flag);

template <size_t N>
std::array<uint8_t, N> parse_hex_array(std::string_view text, const std::string& flag) {
  const std::vector<uint8_t> bytes = parse_hex(text, N, flag);
  std::array<uint8_t, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = bytes[i];
  return out;
}

}  // namespace a3s::power::verify::cli

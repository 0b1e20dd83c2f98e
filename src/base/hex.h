// Hex encoding and strict hex decoding of bytes.
//
// Encoding writes two lowercase digits per byte, in the given byte order. Decoding accepts digits of
// either case and nothing else: no prefix, no separators, no whitespace. Nothing here throws, except
// to_hex into a buffer of the wrong size (a3s::power::Error, codes::kInternal: a programming error).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power {

// "00ff…": 2 * bytes.size() lowercase hex digits.
std::string to_hex(std::span<const uint8_t> bytes);

// The same digits written into `out`, which must hold exactly 2 * bytes.size() chars (else Error,
// codes::kInternal). Allocates nothing, so a secret is never copied into a std::string.
void to_hex(std::span<const uint8_t> bytes, std::span<char> out);

// 0..15 for '0'-'9', 'a'-'f' and 'A'-'F'; -1 for any other char.
int hex_digit_value(char c);

// Decodes exactly 2 * out.size() hex digits into `out`. Returns false when `text` has another length or
// holds a non-hex char; `out` is then zeroed (no partial secret is left in it).
bool decode_hex(std::string_view text, std::span<uint8_t> out);

// Decodes an even number of hex digits (the empty string gives no bytes); nullopt for an odd length or
// a non-hex char.
std::optional<std::vector<uint8_t>> decode_hex(std::string_view text);

}  // namespace a3s::power

// Percent-encoding (RFC 3986 section 2.1) of bytes for URLs and file names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace a3s::power {

// Every byte of `text` except ASCII letters, ASCII digits and the characters in `keep` becomes "%XX"
// (uppercase hex). The default `keep` leaves exactly the RFC 3986 "unreserved" set. Never throws.
std::string percent_encode(std::string_view text, std::string_view keep = "-._~");

// Decodes every "%XX" (hex digits of either case); all other bytes, '+' included, are copied as they
// are. nullopt when a '%' is not followed by two hex digits, and, with `reject_nul`, when an escape
// decodes to a NUL byte. Never throws.
std::optional<std::string> percent_decode(std::string_view text, bool reject_nul = false);

}  // namespace a3s::power

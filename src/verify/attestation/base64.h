// Strict base64 decoding (RFC 4648 §4, the standard alphabet with '=' padding), as the attestation
// response encodes its evidence and certificate table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace a3s::power::verify::attestation {

// Decodes `text`. std::nullopt unless the length is a multiple of 4, every character is in the
// alphabet, padding ('=' once or twice) appears only at the end, and the unused bits of the last
// group are zero (one encoding per byte string). No whitespace or line breaks. Empty text → {}.
std::optional<std::vector<uint8_t>> decode_base64(std::string_view text);

}  // namespace a3s::power::verify::attestation

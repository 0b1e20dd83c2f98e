// Standard base64 (RFC 4648 §4: alphabet A-Z a-z 0-9 + /, '=' padding, no line breaks) over OpenSSL's
// EVP_EncodeBlock / EVP_DecodeBlock.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::crypto {

std::string base64_encode(std::span<const uint8_t> bytes);

// nullopt unless `text` is canonical padded base64: length a multiple of 4, only alphabet characters,
// '=' only as the last one or two characters, the unused bits of the last group zero (so each byte
// string has exactly one text), no whitespace or line breaks. Empty text → empty bytes.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

}  // namespace a3s::power::crypto

// GPT-2 byte-level encoding ("bytes_to_unicode" of OpenAI's GPT-2 encoder.py).
//
// Byte-level BPE vocabularies store tokens as text in which every raw byte is replaced by one
// printable code point: bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF map to themselves; the remaining
// 68 bytes (controls, space, 0x7F..0xA0, 0xAD) map in increasing order to U+0100, U+0101, ...
// (so ' ' becomes 'Ġ' U+0120 and '\n' becomes 'Ċ' U+010A).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace a3s::power::tok {

// The code point a raw byte is written as.
uint32_t byte_to_codepoint(uint8_t b);
// UTF-8 of byte_to_codepoint(b).
const std::string& byte_to_utf8(uint8_t b);
// Inverse mapping; nullopt for code points that no byte maps to.
std::optional<uint8_t> codepoint_to_byte(uint32_t cp);

// Encodes raw bytes into their byte-level text form.
std::string byte_encode(std::string_view raw);
// Decodes byte-level text back to raw bytes. Code points outside the mapping (e.g. added tokens
// stored verbatim) are copied through as their UTF-8 bytes.
std::string byte_decode(std::string_view text);

}  // namespace a3s::power::tok

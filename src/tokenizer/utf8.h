// UTF-8 helpers for the tokenizer.
//
// Decoding follows the lenient convention of GGUF tokenizers (llama.cpp `unicode_cpts_from_utf8`):
// a lead byte announces 1-4 bytes; when the announced continuation bytes are missing or malformed the
// lead byte alone decodes to U+FFFD and decoding resumes at the next byte. Overlong forms and
// surrogates are not rejected (they decode to their numeric value), so tokenization of malformed
// input matches the reference implementations byte for byte. Encoding of a value that is not a
// Unicode scalar above U+10FFFF yields U+FFFD.
//
// Validation for output (`valid_prefix_length`) is strict (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::tok {

inline constexpr uint32_t kReplacementChar = 0xFFFD;

// Number of bytes a UTF-8 sequence starting with `lead` announces (1 for continuation/invalid
// bytes, which then stand alone).
size_t utf8_sequence_length(uint8_t lead);

// Lenient decode (see file comment). Never throws.
std::vector<uint32_t> decode_utf8_lenient(std::string_view text);

// Appends the UTF-8 encoding of `cp` (U+FFFD for values above U+10FFFF).
void append_utf8(std::string& out, uint32_t cp);

// Unicode White_Space property (PropList.txt).
bool is_unicode_whitespace(uint32_t cp);

// Strict UTF-8 scan of `bytes`: how the bytes split into a prefix that is complete valid UTF-8,
// followed by either nothing, an invalid sequence, or an incomplete (but so far valid) tail.
struct Utf8Scan {
  size_t valid = 0;          // bytes of complete, valid UTF-8 at the start
  size_t invalid = 0;        // bytes after `valid` that can never become valid (0 if none)
  bool incomplete = false;   // true when the bytes after `valid` are a truncated valid sequence
};
Utf8Scan scan_utf8(std::string_view bytes);

}  // namespace a3s::power::tok

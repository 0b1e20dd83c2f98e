// Decoding one UTF-8 sequence, and encoding one code point. The decoder only reports what the bytes are; each caller decides what
// an invalid or truncated sequence means for it (a replacement character, an error, a byte copied
// through unchanged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace a3s::power {

enum class Utf8Status {
  kOk,         // a complete sequence: code_point and length are set
  kInvalid,    // the bytes at the offset can never start a valid sequence
  kTruncated,  // the input ends inside a sequence that is valid so far
};

// The rules a sequence is checked against.
enum class Utf8Rules {
  // RFC 3629 / Unicode well-formedness: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
  // above U+10FFFF, so the leads C0, C1 and F5..FF never occur.
  kStrict,
  // The shape only, as GGUF tokenizers decode (llama.cpp unicode_cpt_from_utf8): a lead 110xxxxx,
  // 1110xxxx or 11110xxx followed by that many continuation bytes 10xxxxxx gives the numeric value,
  // overlong forms, surrogates and values up to U+1FFFFF included.
  kShapeOnly,
};

struct Utf8Char {
  Utf8Status status = Utf8Status::kInvalid;
  char32_t code_point = 0;  // meaningful for kOk only
  // kOk: the bytes of the sequence (1..4). kInvalid: under kStrict, the bytes of the maximal invalid
  // subpart (1..3: the lead and any continuation bytes that fitted before the offending byte);
  // under kShapeOnly always 1. kTruncated: the bytes left in the input (1..3). 0 only when `pos` is
  // at or past the end of `s` (status kTruncated).
  size_t length = 0;
};

// Decodes the sequence that starts at s[pos]. Never reads outside `s`; never throws.
// Under kStrict, kTruncated means the remaining bytes are a valid prefix of some sequence; under
// kShapeOnly it means the input ends before the length the lead announces (whatever those bytes are).
Utf8Char decode_utf8(std::string_view s, size_t pos, Utf8Rules rules = Utf8Rules::kStrict);

// Appends the UTF-8 encoding of `cp` (1..4 bytes); values above U+10FFFF are written as U+FFFD.
// Surrogates are encoded as their three bytes (callers that must not produce them check first).
void append_utf8(std::string& out, char32_t cp);

}  // namespace a3s::power

#include "tokenizer/utf8.h"

#include "base/utf8.h"

namespace a3s::power::tok {

size_t utf8_sequence_length(uint8_t lead) {
  if (lead < 0xC0) return 1;  // ASCII or a stray continuation byte
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

std::vector<uint32_t> decode_utf8_lenient(std::string_view text) {
  std::vector<uint32_t> out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const Utf8Char c = decode_utf8(text, i, Utf8Rules::kShapeOnly);
    if (c.status == Utf8Status::kOk) {
      out.push_back(c.code_point);
      i += c.length;
    } else {  // the lead byte alone becomes U+FFFD; decoding resumes at the next byte
      out.push_back(kReplacementChar);
      i += 1;
    }
  }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) { a3s::power::append_utf8(out, static_cast<char32_t>(cp)); }

bool is_unicode_whitespace(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  if (cp < 0x85) return false;
  switch (cp) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

Utf8Scan scan_utf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const Utf8Char c = decode_utf8(bytes, i);
    if (c.status == Utf8Status::kInvalid) return {i, c.length, false};  // the maximal invalid subpart
    if (c.status == Utf8Status::kTruncated) return {i, 0, true};       // valid so far, bytes ran out
    i += c.length;
  }
  return {bytes.size(), 0, false};
}

}  // namespace a3s::power::tok

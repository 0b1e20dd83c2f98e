#include "verify/attestation/base64.h"

namespace a3s::power::verify::attestation {
namespace {

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::vector<uint8_t>> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t data_chars = last ? 4 - padding : 4;
    uint32_t group = 0;
    for (size_t j = 0; j < 4; ++j) {
      int v = 0;
      if (j < data_chars) {
        v = sextet(text[i + j]);
        if (v < 0) return std::nullopt;
      }
      group = group << 6 | static_cast<uint32_t>(v);
    }
    out.push_back(static_cast<uint8_t>(group >> 16));
    if (data_chars >= 3) out.push_back(static_cast<uint8_t>(group >> 8));
    if (data_chars == 4) out.push_back(static_cast<uint8_t>(group));
    // Non-canonical: bits below the last decoded byte must be zero.
    if (data_chars == 2 && (group & 0xFFFF) != 0) return std::nullopt;
    if (data_chars == 3 && (group & 0xFF) != 0) return std::nullopt;
  }
  return out;
}

}  // namespace a3s::power::verify::attestation

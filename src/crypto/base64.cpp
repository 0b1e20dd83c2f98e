#include "crypto/base64.h"

#include <openssl/evp.h>

namespace a3s::power::crypto {

std::string base64_encode(std::span<const uint8_t> bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  if (bytes.empty()) return out;
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  if (text.empty()) return std::vector<uint8_t>{};
  size_t pad = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                       c == '/';
    if (c == '=') {
      if (i + 2 < text.size()) return std::nullopt;  // '=' only in the last two positions
      ++pad;
    } else if (!alpha || pad > 0) {
      return std::nullopt;
    }
  }
  std::vector<uint8_t> out(3 * (text.size() / 4));
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) < pad) return std::nullopt;
  out.resize(static_cast<size_t>(n) - pad);  // EVP_DecodeBlock counts padding as zero bytes
  // One text per byte string: the unused low bits of the last group must be zero.
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

}  // namespace a3s::power::crypto

#include "config/api_key.h"

#include <openssl/sha.h>

namespace a3s::power::config {

KeyDigest hash_raw_key(std::string_view raw_key) {
  KeyDigest d{};
  SHA256(reinterpret_cast<const unsigned char*>(raw_key.data()), raw_key.size(), d.data());
  return d;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<KeyDigest> parse_key_digest(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  text.remove_prefix(kPrefix.size());
  KeyDigest d{};
  for (size_t i = 0; i < d.size(); ++i) {
    const int hi = hex_value(text[2 * i]);
    const int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d[i] = static_cast<uint8_t>((hi << 4) | lo);
  }
  return d;
}

}  // namespace a3s::power::config

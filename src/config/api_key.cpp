#include "config/api_key.h"

#include <openssl/sha.h>

#include "base/hex.h"

namespace a3s::power::config {

KeyDigest hash_raw_key(std::string_view raw_key) {
  KeyDigest d{};
  SHA256(reinterpret_cast<const unsigned char*>(raw_key.data()), raw_key.size(), d.data());
  return d;
}

std::optional<KeyDigest> parse_key_digest(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  text.remove_prefix(kPrefix.size());
  KeyDigest d{};
  if (!decode_hex(text, d)) return std::nullopt;
  return d;
}

}  // namespace a3s::power::config

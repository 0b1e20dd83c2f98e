// ModelKey: a 256-bit AES key for encrypted model files (docs/encrypted-weights.md).
//
// The raw bytes live in a LockedBuffer (mlocked when allowed, never in a core dump) and are wiped
// when the ModelKey is destroyed. Consumers set up their cipher's key schedule from `bytes()` and
// then drop the ModelKey, so the raw key is held only as long as needed. Keys are never logged and
// never appear in error messages.
//
// Text form (key files, A3S_MODEL_KEY): exactly 64 hex digits (either case), optionally surrounded
// by whitespace (a trailing newline is usual). Anything else is Error(codes::kModelKey).
//
// Key id: the first 16 bytes of HMAC-SHA256(key, "a3s-power/model-key-id/v1"). It is stored in each
// encrypted file's header so a wrong key is reported as such before anything is decrypted; it
// reveals nothing usable about the key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "crypto/secure_memory.h"

namespace a3s::power::crypto {

inline constexpr size_t kModelKeyBytes = 32;
inline constexpr size_t kKeyIdBytes = 16;
using KeyId = std::array<uint8_t, kKeyIdBytes>;

class ModelKey {
 public:
  // Parses the text form. `source` names where the text came from ("key file '/k'", "A3S_MODEL_KEY")
  // for the error message; the text itself is never echoed.
  static ModelKey from_hex(std::string_view text, const std::string& source);
  // A fresh random key (OpenSSL's private DRBG, RAND_priv_bytes).
  static ModelKey generate();

  std::span<const uint8_t, kModelKeyBytes> bytes() const {
    return std::span<const uint8_t, kModelKeyBytes>(buf_.data(), kModelKeyBytes);
  }
  KeyId key_id() const;

  // Writes the text form (64 lowercase hex digits, no newline) into `out`, which must hold 64 bytes.
  void to_hex(std::span<char, 2 * kModelKeyBytes> out) const;

 private:
  ModelKey();
  LockedBuffer buf_;
};

}  // namespace a3s::power::crypto

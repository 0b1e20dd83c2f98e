// Incremental SHA-256 (FIPS 180-4) and HMAC-SHA-256 over OpenSSL, and lowercase hex rendering of digests.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace a3s::power::crypto {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const uint8_t> bytes);
  Sha256Digest finish();  // the hasher must not be used afterwards

 private:
  EVP_MD_CTX* ctx_ = nullptr;
};

Sha256Digest sha256(std::span<const uint8_t> bytes);

// HMAC-SHA-256 (RFC 2104) of `data` under `key`. Throws Error(codes::kInternal) if OpenSSL fails.
Sha256Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> data);

}  // namespace a3s::power::crypto

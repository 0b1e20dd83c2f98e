// Streaming SHA-256 (FIPS 180-4) over OpenSSL 3 EVP, for hashing model bytes while they are
// downloaded or copied.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crypto/openssl.h"

namespace a3s::power::store {

class Sha256Hasher {
 public:
  Sha256Hasher();  // throws Error(codes::kInternal) if OpenSSL cannot provide SHA-256
  void update(const void* data, size_t n);
  // Finishes the digest and returns it as 64 lowercase hex characters; the hasher is reset and
  // can be reused.
  std::string finish_hex();
  void reset();

 private:
  crypto::EvpMdCtxPtr ctx_;
};

// SHA-256 of `data` as 64 lowercase hex characters.
std::string sha256_hex(std::string_view data);

// True when `s` is exactly 64 hex characters (either case).
bool is_sha256_hex(std::string_view s);

}  // namespace a3s::power::store

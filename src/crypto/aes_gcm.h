// AES-256-GCM (NIST SP 800-38D) over OpenSSL 3 EVP (AES-NI / VAES when the CPU has them).
//
// An AesGcm holds one EVP context whose key schedule is set once from a ModelKey; the ModelKey can
// be dropped (wiped) right after construction. Each seal/open call sets only the 96-bit nonce, so
// per-chunk cost is the cipher work. Not thread-safe: use one AesGcm per thread (`clone()` copies
// the key schedule without the raw key).
//
// Sizes: nonce 12 bytes, tag 16 bytes, at most 2^31-1 bytes per call (callers use chunks of at most
// 64 MiB). `in` and `out` may be the same buffer (in-place); otherwise they must not overlap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "crypto/model_key.h"

typedef struct evp_cipher_ctx_st EVP_CIPHER_CTX;

namespace a3s::power::crypto {

inline constexpr size_t kGcmNonceBytes = 12;
inline constexpr size_t kGcmTagBytes = 16;
using GcmNonce = std::array<uint8_t, kGcmNonceBytes>;
using GcmTag = std::array<uint8_t, kGcmTagBytes>;

class AesGcm {
 public:
  enum class Direction { Seal, Open };
  AesGcm(const ModelKey& key, Direction dir);
  ~AesGcm();
  AesGcm(AesGcm&& o) noexcept;
  AesGcm& operator=(AesGcm&&) = delete;
  AesGcm(const AesGcm&) = delete;
  AesGcm& operator=(const AesGcm&) = delete;

  AesGcm clone() const;
  Direction direction() const { return dir_; }

  // Encrypts `in` into `out` (same size), authenticating `aad` too; returns the tag.
  GcmTag seal(const GcmNonce& nonce, std::span<const uint8_t> aad, std::span<const uint8_t> in,
              std::span<uint8_t> out);
  // Decrypts `in` into `out` and checks `tag`. Returns false when authentication fails; `out` then
  // holds unauthenticated bytes that the caller must wipe and never use.
  [[nodiscard]] bool open(const GcmNonce& nonce, std::span<const uint8_t> aad, std::span<const uint8_t> in,
                          std::span<uint8_t> out, const GcmTag& tag);

 private:
  AesGcm(EVP_CIPHER_CTX* ctx, Direction dir) : ctx_(ctx), dir_(dir) {}
  EVP_CIPHER_CTX* ctx_ = nullptr;
  Direction dir_;
};

}  // namespace a3s::power::crypto

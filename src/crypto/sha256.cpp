#include "crypto/sha256.h"

#include <openssl/hmac.h>

#include "a3s/power/error.h"

namespace a3s::power::crypto {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw Error(codes::kInternal, "SHA-256 initialisation failed");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_);
}

void Sha256::update(std::span<const uint8_t> bytes) {
  if (!bytes.empty() && EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) != 1)
    throw Error(codes::kInternal, "SHA-256 update failed");
}

Sha256Digest Sha256::finish() {
  Sha256Digest d{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_, d.data(), &len) != 1 || len != d.size())
    throw Error(codes::kInternal, "SHA-256 finalisation failed");
  return d;
}

Sha256Digest sha256(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.update(bytes);
  return h.finish();
}

Sha256Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> data) {
  Sha256Digest out{};
  unsigned int len = 0;
  static const uint8_t kEmpty = 0;
  if (HMAC(EVP_sha256(), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()),
           data.empty() ? &kEmpty : data.data(), data.size(), out.data(), &len) == nullptr ||
      len != out.size())
    throw Error(codes::kInternal, "HMAC-SHA-256 failed");
  return out;
}

}  // namespace a3s::power::crypto

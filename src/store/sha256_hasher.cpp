#include "store/sha256_hasher.h"

#include <openssl/evp.h>

#include "a3s/power/error.h"
#include "base/hex.h"

namespace a3s::power::store {

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw Error(codes::kInternal, "cannot allocate a SHA-256 context");
  reset();
}

void Sha256Hasher::reset() {
  if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw Error(codes::kInternal, "cannot initialise SHA-256");
}

void Sha256Hasher::update(const void* data, size_t n) {
  if (n == 0) return;
  if (EVP_DigestUpdate(ctx_.get(), data, n) != 1)
    throw Error(codes::kInternal, "SHA-256 update failed");
}

std::string Sha256Hasher::finish_hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), md, &len) != 1 || len != 32)
    throw Error(codes::kInternal, "SHA-256 final failed");
  std::string out = to_hex(std::span<const uint8_t>(md, len));
  reset();
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256Hasher h;
  h.update(data.data(), data.size());
  return h.finish_hex();
}

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (hex_digit_value(c) < 0) return false;
  }
  return true;
}

}  // namespace a3s::power::store

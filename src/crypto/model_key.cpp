#include "crypto/model_key.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "a3s/power/error.h"
#include "base/hex.h"

namespace a3s::power::crypto {
namespace {

constexpr std::string_view kKeyIdLabel = "a3s-power/model-key-id/v1";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

ModelKey::ModelKey() : buf_(kModelKeyBytes, "model key") {}

ModelKey ModelKey::from_hex(std::string_view text, const std::string& source) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  if (text.empty()) throw Error(codes::kModelKey, "the model key from " + source + " is empty");
  ModelKey k;
  // Decoded straight into k's locked buffer; on failure decode_hex zeroes it (and k's destructor wipes it).
  if (!decode_hex(text, std::span<uint8_t>(k.buf_.data(), kModelKeyBytes))) {
    throw Error(codes::kModelKey,
                "the model key from " + source +
                    " must be exactly 64 hex digits (256 bits), optionally followed by a newline");
  }
  return k;
}

ModelKey ModelKey::generate() {
  ModelKey k;
  if (RAND_priv_bytes(k.buf_.data(), static_cast<int>(kModelKeyBytes)) != 1)
    throw Error(codes::kInternal, "the random number generator failed");
  return k;
}

KeyId ModelKey::key_id() const {
  uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), buf_.data(), static_cast<int>(kModelKeyBytes),
           reinterpret_cast<const unsigned char*>(kKeyIdLabel.data()), kKeyIdLabel.size(), mac,
           &len) == nullptr ||
      len < kKeyIdBytes) {
    throw Error(codes::kInternal, "key id computation failed");
  }
  KeyId id{};
  for (size_t i = 0; i < kKeyIdBytes; ++i) id[i] = mac[i];
  wipe(mac, sizeof mac);
  return id;
}

void ModelKey::to_hex(std::span<char, 2 * kModelKeyBytes> out) const {
  power::to_hex(std::span<const uint8_t>(buf_.data(), kModelKeyBytes), out);
}

}  // namespace a3s::power::crypto

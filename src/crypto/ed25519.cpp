#include "crypto/ed25519.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "a3s/power/error.h"
#include "crypto/openssl.h"
#include "base/hex.h"

namespace a3s::power::crypto {
namespace {

[[noreturn]] void openssl_failed(const char* what) {
  throw Error(codes::kInternal, std::string("Ed25519: ") + what + " failed");
}

EvpPkeyPtr private_key(Ed25519Seed seed) {
  EvpPkeyPtr k(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()));
  if (!k) openssl_failed("building the private key");
  return k;
}

}  // namespace

void ed25519_random_seed(std::span<uint8_t, kEd25519KeyBytes> seed_out) {
  if (RAND_priv_bytes(seed_out.data(), static_cast<int>(seed_out.size())) != 1) openssl_failed("random seed");
}

Ed25519PublicKey ed25519_public_key(Ed25519Seed seed) {
  const EvpPkeyPtr k = private_key(seed);
  Ed25519PublicKey pub{};
  size_t len = pub.size();
  if (EVP_PKEY_get_raw_public_key(k.get(), pub.data(), &len) != 1 || len != pub.size())
    openssl_failed("deriving the public key");
  return pub;
}

Ed25519Signature ed25519_sign(Ed25519Seed seed, std::span<const uint8_t> message) {
  const EvpPkeyPtr k = private_key(seed);
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) openssl_failed("allocating a context");
  // Pure Ed25519: no message digest (NULL md), one-shot.
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1) openssl_failed("sign init");
  Ed25519Signature sig{};
  size_t len = sig.size();
  if (EVP_DigestSign(ctx.get(), sig.data(), &len, message.data(), message.size()) != 1 || len != sig.size())
    openssl_failed("signing");
  return sig;
}

bool ed25519_verify(const Ed25519PublicKey& public_key, std::span<const uint8_t> message,
                    const Ed25519Signature& signature) {
  EvpPkeyPtr k(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  if (!k) return false;
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) openssl_failed("allocating a context");
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(), message.data(), message.size()) == 1;
}

std::optional<Ed25519PublicKey> parse_ed25519_public_key(std::string_view hex) {
  Ed25519PublicKey k{};
  if (!decode_hex(hex, k)) return std::nullopt;
  return k;
}

}  // namespace a3s::power::crypto

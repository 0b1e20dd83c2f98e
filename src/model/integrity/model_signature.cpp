#include "model/integrity/model_signature.h"

#include <algorithm>

#include "base/hex.h"

namespace a3s::power::crypto {

std::array<uint8_t, kModelSignatureMessageBytes> model_signature_message(const Sha256Digest& plaintext_sha256) {
  std::array<uint8_t, kModelSignatureMessageBytes> m{};
  std::copy(kModelSignatureContext.begin(), kModelSignatureContext.end(), m.begin());
  std::copy(plaintext_sha256.begin(), plaintext_sha256.end(), m.begin() + kModelSignatureContext.size());
  return m;
}

Ed25519Signature sign_model_digest(Ed25519Seed seed, const Sha256Digest& plaintext_sha256) {
  return ed25519_sign(seed, model_signature_message(plaintext_sha256));
}

bool verify_model_digest(const Ed25519PublicKey& public_key, const Sha256Digest& plaintext_sha256,
                         const Ed25519Signature& signature) {
  return ed25519_verify(public_key, model_signature_message(plaintext_sha256), signature);
}

std::string signature_file_text(const Ed25519Signature& signature) { return to_hex(signature) + "\n"; }

std::optional<Ed25519Signature> parse_signature_file_text(std::string_view text) {
  if (text.ends_with("\r\n")) {
    text.remove_suffix(2);
  } else if (text.ends_with("\n")) {
    text.remove_suffix(1);
  }
  Ed25519Signature sig{};
  if (!decode_hex(text, sig)) return std::nullopt;
  return sig;
}

std::string signature_path_for(const std::string& model_path) { return model_path + ".sig"; }

}  // namespace a3s::power::crypto

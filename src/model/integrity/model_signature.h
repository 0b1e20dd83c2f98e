// Model signatures (docs/model-integrity.md): an Ed25519 signature over
//
//     "A3S-POWER-MODEL-SIG-V1\0"  (23 bytes, the NUL included)  ||  SHA-256(plaintext GGUF bytes)  (32 bytes)
//
// stored as 128 hex digits (optionally followed by one newline) in the file `<model path>.sig`.
// Signing the digest (not the file) lets the server verify the same digest it computed while reading
// the bytes it serves, and lets an encrypted model carry the signature of its plaintext.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crypto/ed25519.h"
#include "crypto/sha256.h"

namespace a3s::power::crypto {

inline constexpr std::string_view kModelSignatureContext{"A3S-POWER-MODEL-SIG-V1\0", 23};
inline constexpr size_t kModelSignatureMessageBytes = kModelSignatureContext.size() + 32;
// Largest .sig file read (a valid one is 128 or 129 bytes).
inline constexpr size_t kMaxSignatureFileBytes = 4096;

// The signed message for a plaintext digest.
std::array<uint8_t, kModelSignatureMessageBytes> model_signature_message(const Sha256Digest& plaintext_sha256);

Ed25519Signature sign_model_digest(Ed25519Seed seed, const Sha256Digest& plaintext_sha256);
bool verify_model_digest(const Ed25519PublicKey& public_key, const Sha256Digest& plaintext_sha256,
                         const Ed25519Signature& signature);

// Text form of a .sig file: 128 lowercase hex digits and a newline.
std::string signature_file_text(const Ed25519Signature& signature);
// 128 hex digits (either case), optionally followed by "\n" (or "\r\n"); nullopt for anything else.
std::optional<Ed25519Signature> parse_signature_file_text(std::string_view text);

// `<model_path>.sig`.
std::string signature_path_for(const std::string& model_path);

}  // namespace a3s::power::crypto

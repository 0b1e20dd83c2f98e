// Ed25519 (RFC 8032, "pure" Ed25519) over OpenSSL 3 EVP: key generation, signing, verification, and
// the hex text forms used by model signing (docs/model-integrity.md).
//
// Shapes: a private key is the 32-byte seed, a public key 32 bytes, a signature 64 bytes.
// Private seeds are kept in LockedBuffers by callers and wiped after use; this module copies them
// only into OpenSSL's key object, which OpenSSL frees (and cleanses) itself.
// Errors: Error(codes::kInternal) when OpenSSL fails to build a key or sign.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace a3s::power::crypto {

inline constexpr size_t kEd25519KeyBytes = 32;
inline constexpr size_t kEd25519SignatureBytes = 64;
using Ed25519PublicKey = std::array<uint8_t, kEd25519KeyBytes>;
using Ed25519Signature = std::array<uint8_t, kEd25519SignatureBytes>;
using Ed25519Seed = std::span<const uint8_t, kEd25519KeyBytes>;

// Fills `seed_out` with a fresh random private seed (RAND_priv_bytes).
void ed25519_random_seed(std::span<uint8_t, kEd25519KeyBytes> seed_out);
// The public key of a private seed.
Ed25519PublicKey ed25519_public_key(Ed25519Seed seed);
Ed25519Signature ed25519_sign(Ed25519Seed seed, std::span<const uint8_t> message);
// True when `signature` is a valid signature of `message` under `public_key` (false for a malformed
// public key as well).
bool ed25519_verify(const Ed25519PublicKey& public_key, std::span<const uint8_t> message,
                    const Ed25519Signature& signature);

// "64 hex digits" → public key; nullopt for anything else.
std::optional<Ed25519PublicKey> parse_ed25519_public_key(std::string_view hex);

}  // namespace a3s::power::crypto

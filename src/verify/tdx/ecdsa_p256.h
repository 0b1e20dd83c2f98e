// ECDSA P-256 / SHA-256 verification of the raw signatures found in TDX quotes and Intel collateral.
//
// Shapes: a raw signature is r||s, 64 bytes, each 32-byte big-endian (quote signature, QE report
// signature, TCB Info / QE Identity "signature" hex). A raw public key is x||y, 64 bytes big-endian
// (the quote's attestation key; the uncompressed point without its 0x04 prefix).
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <span>

#include "crypto/openssl.h"

namespace a3s::power::verify::tdx {

// P-256 public key from x||y (64 bytes); nullptr when the bytes are not a point on the curve.
crypto::EvpPkeyPtr p256_public_key(std::span<const uint8_t> xy);

// True when `signature` (r||s, 64 bytes) is a valid ECDSA signature over SHA-256(message) by `key`
// (a P-256 key). False for any malformed input; never throws.
bool ecdsa_p256_verify(EVP_PKEY* key, std::span<const uint8_t> message, std::span<const uint8_t> signature);

}  // namespace a3s::power::verify::tdx

// The claims a server makes about itself in an attestation (schema "a3s-power.claims.v1"), and their
// canonical form. Shape (strings only; `encrypted_sha256` only for encrypted models, `tls` only when
// RA-TLS is on, `receipt` when the server signs receipts, which a tee_mode server always does):
//
//   {"schema":"a3s-power.claims.v1","nonce":"<64 hex>",
//    "model":{"name":"…","sha256":"<64 hex>","encrypted_sha256":"<64 hex>","signature":"verified|absent"},
//    "runtime":{"version":"…","config_sha256":"<64 hex>","tee_policy":"strict|development"},
//    "tls":{"spki_sha256":"<64 hex>"},
//    "receipt":{"ed25519_pub":"<64 hex>","key_id":"<16 hex>"}}
//
// model.sha256 is over the plaintext GGUF bytes, encrypted_sha256 over the encrypted file,
// config_sha256 over the canonical effective non-secret configuration, spki_sha256 over the DER
// SubjectPublicKeyInfo of the server's TLS key. receipt.ed25519_pub is the raw 32-byte public key of
// the server's per-boot receipt key (attestation/receipt.h) and key_id its receipt_key_id. Digests and
// keys are rendered as lowercase hex.
// The bytes that are hashed into report_data are canonical_json(to_json()) (RFC 8785, canonical_json.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "crypto/ed25519.h"
#include "crypto/sha256.h"
#include "attestation/report_data.h"
#include "a3s/power/settings.h"

namespace a3s::power::tee {

inline constexpr const char* kClaimsSchema = "a3s-power.claims.v1";

enum class SignatureStatus { kVerified, kAbsent };  // model signature (model_signing_key)

struct Claims {
  Nonce nonce{};
  std::string model_name;  // UTF-8
  crypto::Sha256Digest model_sha256{};
  std::optional<crypto::Sha256Digest> encrypted_sha256;
  SignatureStatus signature = SignatureStatus::kAbsent;
  std::string runtime_version;  // UTF-8, e.g. "0.4.0"
  crypto::Sha256Digest config_sha256{};
  TeePolicy tee_policy = TeePolicy::kStrict;
  std::optional<crypto::Sha256Digest> tls_spki_sha256;
  std::optional<crypto::Ed25519PublicKey> receipt_public_key;  // → "receipt" (key_id derived)

  // The claims object (shape above).
  nlohmann::json to_json() const;
  // RFC 8785 canonical UTF-8 bytes of to_json(). Throws Error(codes::kInvalidArgument) when a name or
  // version is not valid UTF-8.
  std::string canonical() const;
  // SHA-256 of canonical().
  crypto::Sha256Digest digest() const;
  // nonce || digest() (report_data.h).
  ReportData report_data() const;
};

}  // namespace a3s::power::tee

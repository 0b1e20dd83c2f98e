// The members of the server's claims object (schema "a3s-power.claims.v1", src/attestation/claims.h) that a
// client checks, and the claims digest bound into report_data.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace a3s::power::verify::attestation {

inline constexpr const char* kClaimsSchema = "a3s-power.claims.v1";

struct ClaimsView {
  std::string schema;
  std::array<uint8_t, 32> nonce{};         // "nonce": 64 lowercase hex
  std::string model_name;                  // "model.name"
  std::array<uint8_t, 32> model_sha256{};  // "model.sha256": 64 lowercase hex
  std::string model_sha256_hex;
  std::optional<std::array<uint8_t, 32>> tls_spki_sha256;  // "tls.spki_sha256" (RA-TLS only)
  std::string tee_policy;                                  // "runtime.tee_policy": "strict" | "development"
  std::array<uint8_t, 32> config_sha256{};                 // "runtime.config_sha256": 64 lowercase hex
  std::optional<std::array<uint8_t, 32>> receipt_public_key;  // "receipt.ed25519_pub" (receipt-signing servers)
  std::string receipt_key_id;                                 // "receipt.key_id" (its receipt_key_id)
};

// Reads the members above. std::nullopt, with `error` naming the member, when "schema" is not a
// string; when the schema is kClaimsSchema, also when "nonce", "model" (an object), "model.name" or
// "model.sha256" is missing or malformed, "runtime" is not an object whose "tee_policy" is "strict" or
// "development" and whose "config_sha256" is 64 lowercase hex, "tls" is present without a 64 lowercase
// hex "spki_sha256", or "receipt" is present without a 64 lowercase hex "ed25519_pub" and the "key_id"
// that key has (attestation/receipt.h receipt_key_id). An unknown schema is returned with only `schema` set (the
// caller rejects it as unsupported).
std::optional<ClaimsView> read_claims(const nlohmann::json& claims, std::string& error);

// SHA-256 of the RFC 8785 canonical JSON of `claims` (base/canonical_json.h), the second half of
// report_data. std::nullopt, with `error`, when the claims cannot be canonicalised (numbers, arrays,
// null, invalid UTF-8).
std::optional<std::array<uint8_t, 32>> claims_digest(const nlohmann::json& claims, std::string& error);

}  // namespace a3s::power::verify::attestation

#include "attestation/claims.h"

#include <span>

#include "base/canonical_json.h"
#include "attestation/receipt.h"
#include "base/hex.h"

namespace a3s::power::tee {

nlohmann::json Claims::to_json() const {
  nlohmann::json model = {{"name", model_name},
                          {"sha256", to_hex(model_sha256)},
                          {"signature", signature == SignatureStatus::kVerified ? "verified" : "absent"}};
  if (encrypted_sha256) model["encrypted_sha256"] = to_hex(*encrypted_sha256);
  nlohmann::json out = {{"schema", kClaimsSchema},
                        {"nonce", to_hex(nonce)},
                        {"model", std::move(model)},
                        {"runtime",
                         {{"version", runtime_version},
                          {"config_sha256", to_hex(config_sha256)},
                          {"tee_policy", to_string(tee_policy)}}}};
  if (tls_spki_sha256) out["tls"] = {{"spki_sha256", to_hex(*tls_spki_sha256)}};
  if (receipt_public_key)
    out["receipt"] = {{"ed25519_pub", to_hex(*receipt_public_key)}, {"key_id", receipt_key_id(*receipt_public_key)}};
  return out;
}

std::string Claims::canonical() const {
  return canonical_json(to_json());
}

crypto::Sha256Digest Claims::digest() const {
  const std::string bytes = canonical();
  return crypto::sha256(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

ReportData Claims::report_data() const {
  return make_report_data(nonce, digest());
}

}  // namespace a3s::power::tee

// Builds GET /v1/attestation responses in-process exactly as the server's format defines them
// (include/a3s/power/verify_attestation.h): claims → report_data = nonce || SHA-256(canonical claims)
// → evidence from a provider → JSON with base64 report and certificate table.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "a3s/power/verify_attestation.h"
#include "crypto/base64.h"
#include "attestation/claims.h"
#include "tee/evidence.h"
#include "tee/simulated_provider.h"
#include "attestation/simulated/local_key_hierarchy.h"

namespace a3s::power::verify_attestation_testing {

inline const std::string kModel = "stories-260k";


// The configuration responses publish under "config" (numbers, arrays and null like the server's);
// make_claims' runtime.config_sha256 is the SHA-256 of its canonical form.
nlohmann::json test_config();

// Claims for `model` with a fixed digest pattern, the given nonce and development policy.
tee::Claims make_claims(const tee::Nonce& nonce, const std::string& model = kModel);

// The model digest make_claims puts in claims.model.sha256 (and its "sha256:<hex>" form).
crypto::Sha256Digest model_digest();
std::string model_digest_arg();

// The policy that accepts make_claims' model and digest with simulated evidence.
inline verify::AttestationPolicy simulated_policy() {
  verify::AttestationPolicy p;
  p.model = kModel;
  p.model_sha256 = model_digest();
  p.allow_simulated = true;
  return p;
}

// A fresh 32-byte nonce (counter-based, distinct per call within a process).
tee::Nonce test_nonce(uint8_t seed);

// The response JSON for `evidence` over `claims`.
nlohmann::json response_for(const tee::Evidence& evidence, const tee::Claims& claims);

// Evidence and response from `provider` for `claims`.
nlohmann::json simulated_response(tee::SimulatedProvider& provider, const tee::Claims& claims);

// Evidence laid out like the simulated provider's, but signed under `hierarchy` (any names) with
// its certificate table; tee_type "simulated". `chip_id` must be the hierarchy's VCEK hwID.
tee::Evidence evidence_under(const verify::sev_snp::LocalKeyHierarchy& hierarchy,
                             const verify::sev_snp::ChipId& chip_id, const tee::ReportData& report_data);

}  // namespace a3s::power::verify_attestation_testing

// Attestation as the server offers it: GET /v1/attestation, the TEE block of /health and the
// receipts of generating responses. The mechanism is tee::Attestor (tee/attestor.h: provider
// detection and self-test, claims bound into evidence, the per-boot receipt key); this is the server's
// view of it: built from the configuration (tee_policy, tee_device_root, and Config::effective_json()
// as the published configuration) and attesting a served model by its runtime description.
//
// Errors: tee::Attestor's (Error(codes::kTeeUnavailable) from the constructor under the strict policy
// without a provider; Error(codes::kAttestationFailed) when the platform fails or the model was not
// measured at load).
#pragma once

#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "crypto/sha256.h"
#include "runtime/model_runtime.h"
#include "tee/attestor.h"
#include "tee/evidence.h"

namespace a3s::power::server {

class Attestor : public tee::Attestor {
 public:
  // Detects the provider for cfg and runs the self-test.
  explicit Attestor(const config::Config& cfg);
  // With a given provider (tests); runs the self-test.
  Attestor(const config::Config& cfg, std::unique_ptr<tee::EvidenceProvider> provider);

  using tee::Attestor::attest;
  // The attestation body for a served model (tee::Attestor::attest with openai::attested_model).
  nlohmann::json attest(const tee::Nonce& nonce, const runtime::ModelDescription& model,
                        const std::optional<crypto::Sha256Digest>& tls_spki_sha256 = std::nullopt);
};

}  // namespace a3s::power::server

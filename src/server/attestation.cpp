#include "server/attestation.h"

#include "openai/attested_model.h"

namespace a3s::power::server {
namespace {

tee::AttestorOptions attestor_options(const config::Config& cfg) {
  tee::AttestorOptions o;
  o.policy = cfg.tee_policy;
  o.device_root = cfg.tee_device_root;
  o.published_config = cfg.effective_json();
  return o;
}

}  // namespace

Attestor::Attestor(const config::Config& cfg) : tee::Attestor(attestor_options(cfg)) {}

Attestor::Attestor(const config::Config& cfg, std::unique_ptr<tee::EvidenceProvider> provider)
    : tee::Attestor(attestor_options(cfg), std::move(provider)) {}

nlohmann::json Attestor::attest(const tee::Nonce& nonce, const runtime::ModelDescription& model,
                                const std::optional<crypto::Sha256Digest>& tls_spki_sha256) {
  return tee::Attestor::attest(nonce, openai::attested_model(model), tls_spki_sha256);
}

}  // namespace a3s::power::server

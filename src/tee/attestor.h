// Attestation as A3S Power offers it, for any front end (the HTTP server's GET /v1/attestation and
// receipts, and the embedded runtime, include/a3s/power/embedded.h): the evidence provider, the
// claims of one served model bound into fresh evidence, and the per-boot receipt key.
//
// The evidence provider is chosen at construction (detect.h: configfs-tsm, /dev/sev-guest,
// /dev/tdx_guest under options.device_root; the simulated provider only under TeePolicy
// kDevelopment) and checked once with a self-test (evidence for an all-zero report_data): a present
// but failing device is an error under either policy.
//
// attest() builds the claims (attestation/claims.h) for one model and one client nonce, binds
// report_data = nonce || SHA-256(canonical claims) into fresh evidence and returns the body that
// GET /v1/attestation answers with:
//
//   {"tee_type": "sev-snp"|"tdx"|"simulated", "policy": "strict"|"development",
//    "evidence_format": "sev-snp-report"|"tdx-quote"|"tdx-tdreport",
//    "report": base64 (RFC 4648, padded) of the raw evidence, "report_data": 128 hex,
//    "measurement": hex (SEV-SNP MEASUREMENT, TDX MRTD), "claims": {…}, "claims_sha256": 64 hex,
//    "certificates": base64 of the SEV-SNP certificate table | null, "verifiable": bool,
//    "config": {…} (options.published_config, whose RFC 8785 canonical form's SHA-256 is
//    claims.runtime.config_sha256),
//    "generated_at": "YYYY-MM-DDThh:mm:ssZ"}
//
// Receipts (docs/receipts.md): the constructor also generates the per-boot Ed25519 receipt key (its
// private seed in locked memory, wiped when the Attestor is destroyed; it never leaves the process);
// its public key is in every attestation's claims ("receipt"), and sign_receipt signs receipts with it.
//
// Errors: Error(codes::kTeeUnavailable) from the constructor (strict policy, no provider);
// Error(codes::kAttestationFailed) when the platform fails or the model was not measured at load.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "a3s/power/settings.h"
#include "attestation/receipt.h"
#include "attestation/report_data.h"
#include "crypto/ed25519.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"
#include "tee/evidence.h"

namespace a3s::power::tee {

struct AttestorOptions {
  TeePolicy policy = TeePolicy::kStrict;
  std::string device_root = "/";  // where /sys/kernel/config/tsm and /dev/* are looked up
  // The effective non-secret configuration the attestation body publishes under "config"; the
  // SHA-256 of its RFC 8785 canonical JSON (JsonValues::kAll) is claims.runtime.config_sha256.
  nlohmann::json published_config = nlohmann::json::object();
};

// What the claims say about the model (the loader's measurement, docs/model-integrity.md).
struct AttestedModel {
  std::string name;              // the served name
  std::string sha256;            // hex of the plaintext GGUF bytes ("" when not measured: refused)
  std::string encrypted_sha256;  // hex of the encrypted file ("" for a plaintext model)
  bool signature_verified = false;
};

class Attestor {
 public:
  // Detects the provider for `options` and runs the self-test. Throws as described above.
  explicit Attestor(AttestorOptions options);
  // With a given provider (tests); runs the self-test.
  Attestor(AttestorOptions options, std::unique_ptr<EvidenceProvider> provider);
  virtual ~Attestor();
  Attestor(const Attestor&) = delete;
  Attestor& operator=(const Attestor&) = delete;

  // The attestation body for `model` (see above). Thread-safe: evidence requests are serialised.
  // tls_spki_sha256 (RA-TLS, docs/ra-tls.md): SHA-256 of the DER SubjectPublicKeyInfo of the TLS
  // certificate of the connection (or of the certificate being issued); set → claims.tls.spki_sha256.
  nlohmann::json attest(const Nonce& nonce, const AttestedModel& model,
                        const std::optional<crypto::Sha256Digest>& tls_spki_sha256 = std::nullopt);

  const std::string& tee_type() const { return tee_type_; }
  bool verifiable() const { return verifiable_; }
  TeePolicy policy() const { return policy_; }
  const std::string& provider_name() const { return provider_name_; }
  // SHA-256 of the RFC 8785 canonical JSON of options.published_config.
  const crypto::Sha256Digest& config_sha256() const { return config_sha256_; }

  // The receipt key of this boot and its key id (tee::receipt_key_id).
  const crypto::Ed25519PublicKey& receipt_public_key() const { return receipt_public_; }
  const std::string& receipt_key_id() const { return receipt_key_id_; }
  // Fills receipt.key_id and receipt.config_sha256 and returns the signed receipt object
  // (tee::signed_receipt_json). Thread-safe. Throws Error(codes::kInvalidArgument) when a name in it
  // is not valid UTF-8.
  nlohmann::json sign_receipt(Receipt receipt) const;

 private:
  Evidence evidence_for(const ReportData& report_data);

  std::unique_ptr<EvidenceProvider> provider_;
  std::mutex mu_;  // the provider is not thread-safe
  TeePolicy policy_;
  crypto::Sha256Digest config_sha256_{};
  nlohmann::json config_;  // options.published_config
  crypto::LockedBuffer receipt_seed_;  // kEd25519KeyBytes: the receipt key's private seed
  crypto::Ed25519PublicKey receipt_public_{};
  std::string receipt_key_id_;
  std::string tee_type_;
  std::string provider_name_;
  bool verifiable_ = false;
};

}  // namespace a3s::power::tee

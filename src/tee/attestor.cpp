#include "tee/attestor.h"

#include "a3s/power/error.h"
#include "attestation/claims.h"
#include "base/canonical_json.h"
#include "base/hex.h"
#include "base/utc_time.h"
#include "crypto/base64.h"
#include "tee/detect.h"
#include "tee/evidence_check.h"

namespace a3s::power::tee {
namespace {

std::unique_ptr<EvidenceProvider> detect_for(const AttestorOptions& options) {
  DetectOptions o;
  o.root = options.device_root;
  o.policy = options.policy;
  return detect_provider(o);
}

std::optional<crypto::Sha256Digest> digest_from_hex(const std::string& hex) {
  crypto::Sha256Digest d{};
  if (!decode_hex(hex, d)) return std::nullopt;
  return d;
}

// MEASUREMENT (SEV-SNP) or MRTD (TDX), from the evidence bytes; the checks also confirm the evidence
// carries `report_data`.
std::string measurement_of(const Evidence& e, const ReportData& report_data) {
  if (e.format == evidence_formats::kSevSnpReport) {
    return to_hex(check_sev_snp_report(e.raw, report_data).measurement);
  }
  if (e.format == evidence_formats::kTdxQuote) return to_hex(check_tdx_quote(e.raw, report_data).mrtd);
  if (e.format == evidence_formats::kTdReport) return to_hex(check_tdreport(e.raw, report_data).mrtd);
  throw Error(codes::kAttestationFailed, "the platform returned evidence of an unknown format");
}

}  // namespace

Attestor::Attestor(AttestorOptions options) : Attestor(options, detect_for(options)) {}

Attestor::Attestor(AttestorOptions options, std::unique_ptr<EvidenceProvider> provider)
    : provider_(std::move(provider)), policy_(options.policy), config_(std::move(options.published_config)) {
  const std::string settings = canonical_json(config_, JsonValues::kAll);
  config_sha256_ = crypto::sha256({reinterpret_cast<const uint8_t*>(settings.data()), settings.size()});
  // The receipt key of this boot, generated here, inside the TEE.
  receipt_seed_ = crypto::LockedBuffer(crypto::kEd25519KeyBytes, "receipt key");
  const std::span<uint8_t, crypto::kEd25519KeyBytes> seed(receipt_seed_.data(), crypto::kEd25519KeyBytes);
  crypto::ed25519_random_seed(seed);
  receipt_public_ = crypto::ed25519_public_key(seed);
  receipt_key_id_ = tee::receipt_key_id(receipt_public_);
  provider_name_ = provider_->name();
  // Self-test: the platform answers, with evidence that parses and carries what was asked for.
  Evidence e = evidence_for(ReportData{});
  tee_type_ = e.tee_type;
  verifiable_ = e.verifiable_remotely;
}

Attestor::~Attestor() = default;

Evidence Attestor::evidence_for(const ReportData& report_data) {
  std::lock_guard lk(mu_);
  return provider_->get_evidence(report_data);
}

nlohmann::json Attestor::attest(const Nonce& nonce, const AttestedModel& model,
                                const std::optional<crypto::Sha256Digest>& tls_spki_sha256) {
  Claims c;
  c.nonce = nonce;
  c.model_name = model.name;
  const auto sha = digest_from_hex(model.sha256);
  if (!sha) throw Error(codes::kAttestationFailed, "the model's bytes were not measured when it was loaded");
  c.model_sha256 = *sha;
  if (!model.encrypted_sha256.empty()) {
    c.encrypted_sha256 = digest_from_hex(model.encrypted_sha256);
    if (!c.encrypted_sha256) throw Error(codes::kAttestationFailed, "the encrypted model digest is malformed");
  }
  c.signature = model.signature_verified ? SignatureStatus::kVerified : SignatureStatus::kAbsent;
  c.runtime_version = A3S_POWER_VERSION_STRING;
  c.config_sha256 = config_sha256_;
  c.tee_policy = policy_;
  c.tls_spki_sha256 = tls_spki_sha256;
  c.receipt_public_key = receipt_public_;

  const crypto::Sha256Digest claims_digest = c.digest();
  const ReportData report_data = make_report_data(nonce, claims_digest);
  Evidence e = evidence_for(report_data);
  const std::string measurement = measurement_of(e, report_data);

  nlohmann::json j;
  j["tee_type"] = e.tee_type;
  j["policy"] = to_string(policy_);
  j["evidence_format"] = e.format;
  j["report"] = crypto::base64_encode(e.raw);
  j["report_data"] = to_hex(report_data);
  j["measurement"] = measurement;
  j["claims"] = c.to_json();
  j["claims_sha256"] = to_hex(claims_digest);
  j["certificates"] = e.certificates.empty() ? nlohmann::json(nullptr) : nlohmann::json(crypto::base64_encode(e.certificates));
  j["verifiable"] = e.verifiable_remotely;
  j["config"] = config_;
  j["generated_at"] = rfc3339_utc_now();
  return j;
}

nlohmann::json Attestor::sign_receipt(Receipt receipt) const {
  receipt.key_id = receipt_key_id_;
  receipt.config_sha256 = config_sha256_;
  const std::string bytes = receipt.signed_bytes();
  const crypto::Ed25519Signature sig = crypto::ed25519_sign(
      std::span<const uint8_t, crypto::kEd25519KeyBytes>(receipt_seed_.data(), crypto::kEd25519KeyBytes),
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  return signed_receipt_json(receipt, sig);
}

}  // namespace a3s::power::tee

// Outcome of verifying attestation evidence (SEV-SNP reports, TDX quotes).
//
// Verification runs as a fixed sequence of steps; the first step that fails stops it and is named in
// the result by a stable string (clients, scripts and tests match on it). Messages are one line and
// describe the evidence only (offsets, field names, certificate subjects), never request text.
#pragma once

#include <string>

namespace a3s::power::verify {

// Stable names of the step that failed.
namespace steps {
inline constexpr const char* kMalformedEvidence = "malformed_evidence";      // parse error, bad sizes
inline constexpr const char* kUnsupportedVersion = "unsupported_version";    // report/quote version
inline constexpr const char* kSignatureInvalid = "signature_invalid";        // evidence signature
inline constexpr const char* kChainInvalid = "chain_invalid";                // certificate chain to the root
inline constexpr const char* kCertificateMissing = "certificate_missing";    // no VCEK / PCK to verify with
inline constexpr const char* kTcbMismatch = "tcb_mismatch";                  // cert TCB differs from reported
inline constexpr const char* kTcbOutOfDate = "tcb_out_of_date";              // below minimum / status refused
inline constexpr const char* kCollateralMissing = "collateral_missing";      // no TCB collateral given
inline constexpr const char* kCollateralInvalid = "collateral_invalid";      // bad signature / format
inline constexpr const char* kCollateralExpired = "collateral_expired";      // outside validity at --at time
inline constexpr const char* kRevoked = "certificate_revoked";               // in a CRL
inline constexpr const char* kDebugEnabled = "debug_enabled";                // SNP policy / TDX attributes
inline constexpr const char* kMigrationAgentAllowed = "migration_agent_allowed";  // SNP policy MIGRATE_MA
inline constexpr const char* kVmplMismatch = "vmpl_mismatch";                // SNP VMPL is not the expected one
inline constexpr const char* kMinimumTcbUnknown = "minimum_tcb_unknown";     // SNP: no minimum TCB to compare
inline constexpr const char* kQeReportInvalid = "qe_report_invalid";         // TDX QE report / binding
inline constexpr const char* kQeIdentityMismatch = "qe_identity_mismatch";   // TDX QE is not QE Identity's / Intel's
inline constexpr const char* kAdvisoryRejected = "advisory_rejected";        // TDX TCB level's advisory refused
inline constexpr const char* kMeasurementMismatch = "measurement_mismatch";  // policy: measurement
inline constexpr const char* kReportDataMismatch = "report_data_mismatch";   // policy: report_data
inline constexpr const char* kNonceMismatch = "nonce_mismatch";
inline constexpr const char* kClaimsDigestMismatch = "claims_digest_mismatch";
inline constexpr const char* kModelHashMismatch = "model_hash_mismatch";
inline constexpr const char* kSimulatedEvidence = "simulated_evidence";
// Live attestation (a3s/power/verify_attestation.h).
inline constexpr const char* kMalformedResponse = "malformed_response";              // response shape / encodings
inline constexpr const char* kUnsupportedClaimsSchema = "unsupported_claims_schema";  // claims.schema
inline constexpr const char* kModelMismatch = "model_mismatch";                      // claims.model.name
inline constexpr const char* kNotVerifiable = "not_verifiable";                      // TDREPORT / verifiable false
inline constexpr const char* kPolicyMismatch = "policy_mismatch";                    // claims.runtime.tee_policy
inline constexpr const char* kConfigDigestMismatch = "config_digest_mismatch";       // "config" vs config_sha256
// Receipts (a3s/power/verify_receipt.h).
inline constexpr const char* kMalformedReceipt = "malformed_receipt";                // receipt shape / encodings
inline constexpr const char* kReceiptKeyUnbound = "receipt_key_unbound";              // key not in the claims
inline constexpr const char* kReceiptSignatureInvalid = "receipt_signature_invalid";  // Ed25519 signature
inline constexpr const char* kReceiptModelMismatch = "receipt_model_mismatch";        // receipt model vs claims
inline constexpr const char* kReceiptConfigMismatch = "receipt_config_mismatch";      // receipt config vs claims
inline constexpr const char* kMalformedCompletion = "malformed_completion";          // the response body / stream
inline constexpr const char* kReceiptOutputMismatch = "receipt_output_mismatch";      // response vs receipt
// RA-TLS (verify_ratls_certificate, AttestationPolicy::tls_spki_sha256).
inline constexpr const char* kTlsKeyMismatch = "tls_key_mismatch";                   // claims.tls.spki_sha256
inline constexpr const char* kRatlsExtensionMissing = "ratls_extension_missing";      // no evidence extension
inline constexpr const char* kRatlsCertificateInvalid = "ratls_certificate_invalid";  // DER / self-signature
inline constexpr const char* kRatlsCertificateExpired = "ratls_certificate_expired";  // outside its validity
}  // namespace steps

struct VerifyResult {
  bool accepted = false;
  std::string failed_step;  // one of steps::*, empty when accepted
  std::string message;      // one line: what was checked and why it failed

  static VerifyResult ok() { return {true, {}, {}}; }
  static VerifyResult fail(std::string step, std::string message) {
    return {false, std::move(step), std::move(message)};
  }
};

}  // namespace a3s::power::verify

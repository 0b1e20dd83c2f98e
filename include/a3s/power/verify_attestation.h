// A3S Power live attestation: checking a server's GET /v1/attestation response before sending it a
// prompt (library a3s_verify; no HTTP code here — the caller fetches the response).
//
//   Nonce nonce = 32 random bytes;                    // sent as ?nonce=<64 hex>&model=<name>
//   AttestationPolicy p;
//   p.model = "llama3"; p.model_sha256 = golden_model_digest;
//   p.expected_measurements.push_back(golden_measurement);
//   AttestationResult r = verify_attestation(response_body, nonce, p);
//   if (!r.accepted) refuse(r.failed_step, r.message);
//
// Response (application/json, one object; every member required, no other types accepted):
//   "tee_type":        "sev-snp" | "tdx" | "simulated"
//   "policy":          "strict" | "development" (unsigned: it must equal claims.runtime.tee_policy,
//                      the signed value, which is the only one checked and reported)
//   "evidence_format": "sev-snp-report" | "tdx-quote" | "tdx-tdreport"
//   "report":          standard padded base64 (RFC 4648 §4) of the raw evidence bytes
//   "report_data":     128 lowercase hex digits (the 64 bytes the evidence binds)
//   "measurement":     lowercase hex (SNP MEASUREMENT / TDX MRTD, 96 digits)
//   "claims":          the claims object (schema "a3s-power.claims.v1", below)
//   "claims_sha256":   64 lowercase hex digits
//   "certificates":    base64 of the SEV-SNP certificate table (AMD 56421 / configfs-tsm auxblob:
//                      VCEK, ASK, ARK) or null
//   "verifiable":      boolean (false for TDX TDREPORTs and simulated evidence)
//   "config":          object: the server's effective non-secret configuration (docs/configuration.md)
//   "generated_at":    RFC 3339 UTC time, informational
// Claims: {"schema":"a3s-power.claims.v1","nonce":"<64 hex>","model":{"name":"…","sha256":"<64 hex>",
//   "encrypted_sha256":"<64 hex>" (encrypted models), "signature":"verified|absent"},
//   "runtime":{"version":"…","config_sha256":"<64 hex>","tee_policy":"strict|development"},
//   "tls":{"spki_sha256":"<64 hex>"} (RA-TLS only),
//   "receipt":{"ed25519_pub":"<64 hex>","key_id":"<16 hex>"} (the per-boot receipt key; docs/receipts.md)}.
// Binding: report_data = nonce (32 bytes) || SHA-256(RFC 8785 canonical JSON of claims).
//
// Checks, in order; the first failure stops verification and names its step (AttestationResult::
// failed_step, stable strings):
//   1. response shape, types, hex / base64 encodings; no JSON  malformed_response
//      object (the claims included) repeats a key; the unsigned
//      "policy" equals claims.runtime.tee_policy
//   2. claims.schema is "a3s-power.claims.v1"                   unsupported_claims_schema
//   2b. only when policy.tls_spki_sha256 is set (RA-TLS):        tls_key_mismatch
//      claims.tls.spki_sha256 is present and equals it
//   3. claims.nonce and report_data[0..32] equal the nonce sent nonce_mismatch
//   4. SHA-256(canonical(claims)) equals report_data[32..64],   claims_digest_mismatch
//      and claims_sha256 agrees (computed here, never trusted)
//   4b. SHA-256(RFC 8785 canonical "config") equals            config_digest_mismatch
//      claims.runtime.config_sha256
//   5. claims.model.name equals the model asked for             model_mismatch
//   6. claims.model.sha256 equals the expected digest           model_hash_mismatch
//   7. evidence kind: a TDREPORT or "verifiable": false         not_verifiable
//      hardware evidence; simulated evidence unless allowed     simulated_evidence
//   7b. claims.runtime.tee_policy is the one required            policy_mismatch
//      (policy.require_tee_policy; by default "strict" unless
//      allow_simulated, which then accepts either)
//   8. the REPORT_DATA field parsed from the evidence bytes     report_data_mismatch
//      equals "report_data" (malformed_evidence if it does not parse)
//   9. endorsements: SEV-SNP VCEK from the certificate table    certificate_missing
//      (or the caller's vcek); simulated: the table's ARK must  chain_invalid
//      be self-signed and labelled "A3S Power SIMULATED"
//  10. verify_evidence (a3s/power/verify.h): signature, chain,  its steps (signature_invalid, ...)
//      TCB, debug policy, measurement policy                    measurement_mismatch
//  11. "measurement" equals the evidence's measurement          measurement_mismatch
//
// Fail closed: any field that cannot be checked is a rejection. Never throws for anything in the
// response; throws a3s::power::Error only for a bad policy ("invalid_argument": empty model name, a
// time `at` outside 1970–2255) or an unreadable collateral directory ("io_error", TDX).
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/verify.h"

namespace a3s::power::verify {

using Nonce = std::array<uint8_t, 32>;
using Sha256 = std::array<uint8_t, 32>;

// Organization (O) of every certificate in the server's simulated hierarchy (src/tee simulated
// provider); the only root a response may bring for itself, and only with allow_simulated.
inline constexpr const char* kSimulatedOrganization = "A3S Power SIMULATED";

struct AttestationPolicy {
  std::string model;      // the model name asked for; claims.model.name must equal it (required)
  Sha256 model_sha256{};  // required: SHA-256 of the plaintext GGUF the client expects
  std::vector<Measurement> expected_measurements;  // any of; empty: not checked
  // Accept simulated evidence (development servers). Its signature and chain are still verified,
  // against the response's own ARK, which must be self-signed and labelled kSimulatedOrganization.
  bool allow_simulated = false;
  // Offline options of verify_evidence that apply to live evidence (EvidenceOptions has the details):
  std::string vcek;            // SEV-SNP: verify with this VCEK instead of the certificate table's
  std::string root;            // trust this root (PEM) instead of the pinned AMD ARK / Intel root
  std::string collateral_dir;  // TDX TCB collateral
  std::optional<std::time_t> at;
  bool no_tcb_check = false;
  std::optional<SnpTcb> snp_minimum_tcb;  // unset: the default table (not for simulated evidence)
  std::optional<uint32_t> snp_vmpl;        // SEV-SNP: the report's VMPL must equal this
  bool snp_allow_migration_agent = false;  // SEV-SNP: accept GUEST_POLICY MIGRATE_MA
  std::vector<std::string> tdx_accepted_tcb_statuses;
  // Endorsements fetched for the response's evidence (e.g. a3s-power-verify --online; see
  // response_evidence): SEV-SNP hardware evidence: AMD's CRL (EvidenceOptions::snp_crl; empty:
  // revocation not checked, skipped lists "crl"; not used for simulated evidence, whose ARK is not
  // AMD's), and the ASK + ARK when the certificate table has none; TDX: the collateral
  // (EvidenceOptions::tdx_collateral; not together with collateral_dir).
  std::string snp_crl;
  std::string snp_cert_chain;
  std::optional<TdxCollateralData> tdx_collateral;
  TdxPolicy tdx;  // TDX evidence only: RTMR / MRCONFIGID / MROWNER and advisory policy (not used for SEV-SNP)
  // The server's signed claims.runtime.tee_policy must be this: "strict" or "development". Empty: "strict",
  // or either one when allow_simulated is set. Any other value throws Error "invalid_argument".
  std::string require_tee_policy;
  // RA-TLS (docs/ra-tls.md): SHA-256 of the DER SubjectPublicKeyInfo of the TLS peer key of the
  // connection the response came over. When set, claims.tls.spki_sha256 must equal it.
  std::optional<Sha256> tls_spki_sha256;
};

// One line of the verdict: a check that ran (passed or failed).
struct AttestationCheck {
  std::string name;  // "certificate" (verify_ratls_certificate), "response", "claims_schema",
                     // "tls_key" (RA-TLS), "nonce", "claims_digest", "config", "model", "model_hash",
                     // "evidence_kind", "policy", "report_data", "endorsements", "evidence", "measurement"
  bool passed = false;
  std::string detail;  // one line
};

struct AttestationResult {
  bool accepted = false;
  std::string failed_step;  // empty when accepted
  std::string message;      // one line; empty when accepted
  // From the response, once its shape is valid (empty before).
  std::string tee_type;                  // "sev-snp" | "tdx" | "simulated"
  std::string evidence_format;           // "sev-snp-report" | "tdx-quote" | "tdx-tdreport"
  bool simulated = false;                // tee_type is "simulated"
  std::string nonce;                     // hex of the nonce sent (always set)
  std::string model;                     // claims.model.name
  std::string model_sha256;              // claims.model.sha256
  // claims.runtime.tee_policy ("strict" | "development"), signed: set once the claims digest verified
  // (empty before); never the response's unsigned "policy".
  std::string tee_policy;
  std::string report_data;               // 128 hex
  std::string measurement;               // from the evidence when it was verified, else the response's
  std::string tcb_status;                // verify_evidence's (Report::tcb_status); "unknown" before that step
  std::vector<std::string> skipped;      // verify_evidence's (Report::skipped)
  std::optional<TdxMeasurements> tdx;    // verify_evidence's (Report::tdx), TDX evidence that parsed
  std::vector<std::string> advisory_ids;  // verify_evidence's (Report::advisory_ids)
  // verify_evidence's, once the evidence step ran (SEV-SNP; see Report): VMPL, the minimum TCB compared
  // and its source ("default", "given", "none") and the default table's date, and warnings.
  std::optional<uint32_t> vmpl;
  std::string minimum_tcb, minimum_tcb_source, minimum_tcb_date;
  std::vector<std::string> warnings;
  std::vector<AttestationCheck> checks;  // in order; the last failed one is failed_step's
};

AttestationResult verify_attestation(std::string_view response_json, const Nonce& nonce,
                                     const AttestationPolicy& policy);

// What a response brings for its endorsements, so that a caller can fetch the rest (AMD KDS, Intel
// PCS) before verify_attestation: the raw evidence and, for SEV-SNP, the VCEK (or VLEK) and ASK + ARK
// of its certificate table (empty when absent). std::nullopt when the response does not have the
// documented shape (verify_attestation then rejects it) or its evidence is simulated or not remotely
// verifiable (nothing to fetch). Nothing here is trusted: verify_attestation checks it all.
struct ResponseEvidence {
  std::string evidence_format;  // "sev-snp-report" | "tdx-quote"
  std::vector<uint8_t> evidence;
  std::string vcek;        // SEV-SNP: the table's VCEK, else its VLEK; "" when none
  std::string cert_chain;  // SEV-SNP: the table's ASK + ARK; "" when none
};
std::optional<ResponseEvidence> response_evidence(std::string_view response_json);

// ---- RA-TLS certificates (docs/ra-tls.md) ------------------------------------------------------
//
// An RA-TLS server certificate (self-signed X.509 v3, ECDSA P-384, CN "A3S Power RA-TLS") carries a
// non-critical extension with OID kRatlsEvidenceOid (under the UUID arc 2.25, ITU-T X.667). Its
// extnValue is the DER of an OCTET STRING whose contents are the UTF-8 JSON of a GET /v1/attestation
// response body (shape above) made when the certificate was issued, with
//   claims.tls.spki_sha256 = claims.nonce = SHA-256 of the certificate's DER SubjectPublicKeyInfo
// (no client nonce exists at issue time: freshness comes from the nonce flow over the connection).
inline constexpr const char* kRatlsEvidenceOid = "2.25.5018800965966951311172586507678435311";

// Checks of verify_ratls_certificate, in order (stable failed_step strings):
//   a. the DER parses as an X.509 certificate whose signature    ratls_certificate_invalid
//      verifies under its own key
//   b. notBefore <= now (or policy.at) <= notAfter                 ratls_certificate_expired
//   c. the evidence extension is present, and is an OCTET STRING   ratls_extension_missing
//   d. verify_attestation of the extension's body with nonce =     its steps; tls_key_mismatch when
//      SHA-256(SPKI DER of this certificate) and tls_spki_sha256   claims.tls.spki_sha256 is another
//      = the same digest: the evidence binds this certificate's    key's (e.g. a man in the middle
//      key. The model checks (5, 6) run only when policy.model     that copied the extension onto
//      is non-empty (the certificate names the first served       its own certificate)
//      model; the nonce flow checks the model asked for).
// Never throws for anything in the certificate; throws like verify_attestation for a bad policy.
AttestationResult verify_ratls_certificate(std::string_view certificate_der, const AttestationPolicy& policy);

// The response body in an RA-TLS certificate's evidence extension, unverified (e.g. for
// response_evidence before verify_ratls_certificate); std::nullopt when the DER does not parse or has
// not exactly one such extension holding an OCTET STRING.
std::optional<std::string> ratls_certificate_response(std::string_view certificate_der);

// SHA-256 of the DER SubjectPublicKeyInfo of a DER X.509 certificate; std::nullopt when it does not
// parse.
std::optional<Sha256> certificate_spki_sha256(std::string_view certificate_der);

}  // namespace a3s::power::verify

// verify_attestation: the checks of a3s/power/verify_attestation.h, in its order.
#include "a3s/power/verify_attestation.h"


#include <algorithm>
#include <span>

#include "a3s/power/error.h"
#include "attestation/attestation_response.h"
#include "base/canonical_json.h"
#include "base/hex.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"
#include "verify/attestation/claims_view.h"
#include "verify/attestation/evidence_report_data.h"
#include "verify/attestation/simulated_root.h"
#include "verify/attestation/verify_response.h"
#include "verify/verdict.h"
#include "attestation/sev_snp/cert_table.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify {
namespace {

using attestation::AttestationResponse;

using AttestationVerdict = Verdict<AttestationResult>;

// EvidenceOptions for verify_evidence: the policy's offline options that apply to this evidence, plus
// the endorsements (check 9). Returns the check's detail, or sets `step` / `message` on failure.
std::string endorse(const AttestationResponse& resp, const AttestationPolicy& policy, bool simulated,
                    EvidenceOptions& opt, std::string& step, std::string& message) {
  opt.expected_measurements = policy.expected_measurements;
  opt.expected_report_data = resp.report_data;
  opt.at = policy.at;
  opt.no_tcb_check = policy.no_tcb_check;
  opt.allow_simulated = policy.allow_simulated;
  if (resp.evidence_format == "tdx-quote") {
    opt.collateral_dir = policy.collateral_dir;
    opt.tdx_collateral = policy.tdx_collateral;
    opt.root = policy.root;
    opt.tdx_accepted_tcb_statuses = policy.tdx_accepted_tcb_statuses;
    opt.tdx = policy.tdx;
    return "TDX: the PCK certificate chain from the quote";
  }
  if (!policy.no_tcb_check) opt.snp_minimum_tcb = policy.snp_minimum_tcb;
  opt.snp_vmpl = policy.snp_vmpl;
  opt.snp_allow_migration_agent = policy.snp_allow_migration_agent;
  // Simulated evidence carries no firmware's TCB: the default table does not apply to it.
  opt.snp_default_minimum_tcb = !simulated;
  std::optional<sev_snp::CertTable> table;
  if (resp.certificates) {
    std::string error;
    table = sev_snp::parse_cert_table(*resp.certificates, error);
    if (!table) {
      step = steps::kMalformedResponse;
      message = "certificates: " + error;
      return {};
    }
  }
  if (simulated) {
    if (!table || table->vcek.empty() || table->ask.empty() || table->ark.empty()) {
      step = steps::kCertificateMissing;
      message = "simulated evidence without a certificate table holding its VCEK, ASK and ARK";
      return {};
    }
    std::string why;
    if (!attestation::is_simulated_root(table->ark, why)) {
      step = steps::kChainInvalid;
      message = why;
      return {};
    }
    // A client's --vcek / --root apply here too (and then fail unless they are the simulated ones).
    opt.vcek = policy.vcek.empty() ? table->vcek : policy.vcek;
    opt.cert_chain = table->ask + table->ark;
    opt.root = policy.root.empty() ? table->ark : policy.root;  // the only root trusted for this response
    std::string detail = policy.vcek.empty() ? "VCEK" : "the client's VCEK";
    detail += ", ASK and the self-signed simulated ARK from the response's certificate table";
    if (!policy.root.empty()) detail += ", checked against the client's root";
    return detail;
  }
  opt.root = policy.root;
  opt.snp_crl = policy.snp_crl;
  const std::string table_vcek = table ? (table->vcek.empty() ? table->vlek : table->vcek) : std::string();
  opt.vcek = policy.vcek.empty() ? table_vcek : policy.vcek;
  if (table && !table->ask.empty()) opt.cert_chain = table->ask + table->ark;
  else opt.cert_chain = policy.snp_cert_chain;
  if (opt.vcek.empty()) {
    step = steps::kCertificateMissing;
    message =
        "the response carries no certificate table with a VCEK or VLEK and no VCEK was given (--vcek): the "
        "report cannot be checked";
    return {};
  }
  std::string detail =
      policy.vcek.empty() ? "VCEK from the response's certificate table" : "VCEK given by the client";
  detail += opt.cert_chain.empty()                 ? ", pinned ASK"
            : (table && !table->ask.empty())        ? ", ASK from the response's certificate table"
                                                    : ", ASK from AMD KDS";
  if (!policy.snp_crl.empty()) detail += ", AMD's CRL";
  detail += policy.root.empty() ? ", pinned AMD ARK" : ", the client's root";
  return detail;
}

// The tee_policy the claims must carry; "" accepts either.
std::string required_tee_policy(const AttestationPolicy& policy) {
  if (policy.require_tee_policy.empty()) return policy.allow_simulated ? "" : "strict";
  if (policy.require_tee_policy != "strict" && policy.require_tee_policy != "development")
    throw Error(codes::kInvalidArgument, "the required TEE policy must be \"strict\" or \"development\"");
  return policy.require_tee_policy;
}

TeeType format_type(const std::string& evidence_format) {
  return evidence_format == "tdx-quote" ? TeeType::kTdx : TeeType::kSevSnp;
}

}  // namespace

AttestationResult verify_attestation(std::string_view response_json, const Nonce& nonce,
                                     const AttestationPolicy& policy) {
  if (policy.model.empty()) throw Error(codes::kInvalidArgument, "the model name to verify is empty");
  return attestation::verify_response(response_json, &nonce, policy, /*check_model=*/true);
}

std::optional<ResponseEvidence> response_evidence(std::string_view response_json) {
  std::string error;
  const auto resp = attestation::parse_attestation_response(response_json, error);
  if (!resp || resp->tee_type == "simulated" || !resp->verifiable ||
      (resp->evidence_format != "sev-snp-report" && resp->evidence_format != "tdx-quote"))
    return std::nullopt;
  ResponseEvidence out;
  out.evidence_format = resp->evidence_format;
  out.evidence = resp->report;
  if (resp->evidence_format == "sev-snp-report" && resp->certificates) {
    const auto table = sev_snp::parse_cert_table(*resp->certificates, error);
    if (!table) return std::nullopt;
    out.vcek = table->vcek.empty() ? table->vlek : table->vcek;
    if (!table->ask.empty()) out.cert_chain = table->ask + table->ark;
  }
  return out;
}

AttestationResult attestation::verify_response(std::string_view response_json, const Nonce* nonce,
                                               const AttestationPolicy& policy, bool check_model) {
  const std::string required = required_tee_policy(policy);  // throws for a bad policy before any check
  AttestationResult r;
  if (nonce) r.nonce = to_hex(*nonce);
  r.tcb_status = "unknown";
  AttestationVerdict v(r);

  // 1. Shape.
  std::string error;
  const auto resp = attestation::parse_attestation_response(response_json, error);
  if (!resp) return v.fail("response", steps::kMalformedResponse, error);
  r.tee_type = resp->tee_type;
  r.evidence_format = resp->evidence_format;
  r.simulated = resp->tee_type == "simulated";
  r.report_data = resp->report_data_hex;
  r.measurement = resp->measurement;
  const auto claims = attestation::read_claims(resp->claims, error);
  if (!claims) return v.fail("response", steps::kMalformedResponse, error);
  // Only the signed claim is trusted; an unsigned "policy" that says otherwise is a forged or broken answer.
  if (claims->schema == attestation::kClaimsSchema && resp->policy != claims->tee_policy)
    return v.fail("response", steps::kMalformedResponse,
                  "the unsigned member \"policy\" (" + resp->policy +
                      ") differs from the signed claims.runtime.tee_policy (" + claims->tee_policy + ")");
  v.pass("response", "tee_type " + resp->tee_type + ", evidence_format " + resp->evidence_format);

  // 2. Claims schema.
  if (claims->schema != attestation::kClaimsSchema)
    return v.fail(
        "claims_schema", steps::kUnsupportedClaimsSchema,
        "claims schema \"" + claims->schema.substr(0, 64) + "\" is not " + attestation::kClaimsSchema);
  v.pass("claims_schema", attestation::kClaimsSchema);
  r.model = claims->model_name;
  r.model_sha256 = claims->model_sha256_hex;

  // 2b. RA-TLS: the claims bind the TLS key of the connection (or certificate) they came with.
  if (policy.tls_spki_sha256) {
    const std::string peer = to_hex(*policy.tls_spki_sha256);
    if (!claims->tls_spki_sha256)
      return v.fail("tls_key", steps::kTlsKeyMismatch,
                    "the claims bind no TLS key (claims.tls is missing) but the peer key's SPKI SHA-256 is " + peer);
    if (!crypto::equal_constant_time(*claims->tls_spki_sha256, *policy.tls_spki_sha256))
      return v.fail("tls_key", steps::kTlsKeyMismatch,
                    "claims.tls.spki_sha256 " + to_hex(*claims->tls_spki_sha256) +
                        " differs from the SPKI SHA-256 of the TLS peer key (" + peer +
                        "): the evidence was made for another key");
    v.pass("tls_key", "claims.tls.spki_sha256 equals the TLS peer key's SPKI SHA-256 (" + peer + ")");
  }

  // 3. Freshness.
  const std::span<const uint8_t> report_data(resp->report_data);
  if (!nonce) {
    r.nonce = to_hex(claims->nonce);
    if (!crypto::equal_constant_time(report_data.first(32), claims->nonce))
      return v.fail("nonce", steps::kNonceMismatch,
                    "report_data[0..32] differs from claims.nonce: the evidence was made for other claims");
    v.pass("nonce", "claims.nonce equals report_data[0..32] (" + r.nonce +
                        "; no nonce given: freshness not checked)");
  } else {
    if (!crypto::equal_constant_time(claims->nonce, *nonce))
      return v.fail("nonce", steps::kNonceMismatch,
                    "claims.nonce differs from the nonce sent: the attestation was made for another request");
    if (!crypto::equal_constant_time(report_data.first(32), *nonce))
      return v.fail(
          "nonce", steps::kNonceMismatch,
          "report_data[0..32] differs from the nonce sent: the evidence was made for another request");
    v.pass("nonce", "claims.nonce and report_data[0..32] equal the nonce sent (" + r.nonce + ")");
  }

  // 4. The claims are the ones the evidence binds.
  const auto digest = attestation::claims_digest(resp->claims, error);
  if (!digest) return v.fail("claims_digest", steps::kMalformedResponse, error);
  if (!crypto::equal_constant_time(*digest, report_data.last(32)))
    return v.fail("claims_digest", steps::kClaimsDigestMismatch,
                  "SHA-256 of the canonical claims (" + to_hex(*digest) +
                      ") differs from report_data[32..64]: the claims are not the ones the evidence binds");
  if (!crypto::equal_constant_time(*digest, resp->claims_sha256))
    return v.fail("claims_digest", steps::kClaimsDigestMismatch,
                  "claims_sha256 differs from the SHA-256 of the canonical claims (" + to_hex(*digest) + ")");
  v.pass("claims_digest",
         "SHA-256 of the canonical claims equals report_data[32..64] (" + to_hex(*digest) + ")");
  r.tee_policy = claims->tee_policy;

  // 4b. The published configuration is the one the claims bind.
  std::string config_canonical;
  try {
    config_canonical = canonical_json(resp->config, JsonValues::kAll);
  } catch (const std::exception& e) {  // the message names the path only
    return v.fail("config", steps::kMalformedResponse, std::string("config cannot be canonicalised: ") + e.what());
  }
  const crypto::Sha256Digest config_digest =
      crypto::sha256({reinterpret_cast<const uint8_t*>(config_canonical.data()), config_canonical.size()});
  if (!crypto::equal_constant_time(config_digest, claims->config_sha256))
    return v.fail("config", steps::kConfigDigestMismatch,
                  "SHA-256 of the canonical config (" + to_hex(config_digest) +
                      ") differs from claims.runtime.config_sha256: the configuration shown is not the attested one");
  v.pass("config", "SHA-256 of the canonical config equals claims.runtime.config_sha256 (" + to_hex(config_digest) + ")");

  // 5–6. The model.
  if (!check_model) {
    v.pass("model", "claims.model.name is \"" + claims->model_name + "\" (not compared)");
  } else if (claims->model_name != policy.model)
    return v.fail("model", steps::kModelMismatch,
                  "claims.model.name differs from the model asked for (\"" + policy.model + "\")");
  if (check_model) {
    v.pass("model", "claims.model.name is \"" + policy.model + "\"");
    if (!crypto::equal_constant_time(claims->model_sha256, policy.model_sha256))
      return v.fail("model_hash", steps::kModelHashMismatch,
                    "claims.model.sha256 " + claims->model_sha256_hex +
                        " differs from the expected sha256:" + to_hex(policy.model_sha256));
    v.pass("model_hash", "claims.model.sha256 is the expected sha256:" + claims->model_sha256_hex);
  }

  // 7. Evidence a remote verifier can check.
  if (resp->evidence_format == "tdx-tdreport")
    return v.fail(
        "evidence_kind", steps::kNotVerifiable,
        "the evidence is a TDX TDREPORT (MAC'd for the local platform only); a remote client cannot "
        "verify it");
  if (r.simulated) {
    if (!policy.allow_simulated)
      return v.fail("evidence_kind", steps::kSimulatedEvidence,
                    "the server's TEE is simulated (development policy): no hardware attests it "
                    "(--allow-simulated accepts it for development)");
    v.pass("evidence_kind", "SIMULATED evidence (allowed): no hardware attests this server");
  } else {
    if (!resp->verifiable)
      return v.fail("evidence_kind", steps::kNotVerifiable,
                    "the server marks its " + resp->tee_type + " evidence as not remotely verifiable");
    v.pass("evidence_kind", "hardware " + resp->evidence_format);
  }

  // 7b. The server's signed TEE policy.
  if (!required.empty() && claims->tee_policy != required)
    return v.fail("policy", steps::kPolicyMismatch,
                  "the signed claims.runtime.tee_policy is " + claims->tee_policy + ", not the required " + required);
  v.pass("policy", "claims.runtime.tee_policy is " + claims->tee_policy +
                       (required.empty() ? " (either policy accepted with simulated evidence allowed)"
                                         : " (required: " + required + ")"));

  // 8. The evidence itself carries report_data.
  const auto evidence_rd = attestation::evidence_report_data(resp->report, error);
  if (!evidence_rd) return v.fail("report_data", steps::kMalformedEvidence, error);
  if (detect_tee_type(resp->report) != format_type(resp->evidence_format))
    return v.fail("report_data", steps::kMalformedEvidence,
                  "evidence_format is " + resp->evidence_format + " but the report bytes are a " +
                      std::string(to_string(detect_tee_type(resp->report))) + " evidence");
  if (!crypto::equal_constant_time(*evidence_rd, report_data))
    return v.fail(
        "report_data", steps::kReportDataMismatch,
        "the evidence's REPORT_DATA (" + to_hex(*evidence_rd) + ") differs from the response's report_data");
  v.pass("report_data", "the evidence's REPORT_DATA equals report_data");

  // 9. Endorsements.
  EvidenceOptions opt;
  std::string step, message;
  const std::string endorsed_by = endorse(*resp, policy, r.simulated, opt, step, message);
  if (!step.empty()) return v.fail("endorsements", step, message);
  v.pass("endorsements", endorsed_by);

  // 10. Signature, chain, TCB and the measurement policy.
  const Report report = verify_evidence(resp->report, opt);
  r.tcb_status = report.tcb_status;
  r.skipped = report.skipped;
  r.tdx = report.tdx;
  r.advisory_ids = report.advisory_ids;
  r.vmpl = report.vmpl;
  r.minimum_tcb = report.minimum_tcb;
  r.minimum_tcb_source = report.minimum_tcb_source;
  r.minimum_tcb_date = report.minimum_tcb_date;
  r.warnings = report.warnings;
  r.simulated = r.simulated || report.simulated;  // hardware-labelled evidence under the simulated root
  if (!report.measurement.empty()) r.measurement = report.measurement;
  if (!report.accepted)
    return v.fail(report.failed_step == steps::kMeasurementMismatch ? "measurement" : "evidence",
                  report.failed_step, report.message);
  v.pass("evidence", "signature and certificate chain verified, tcb_status " + report.tcb_status);

  // 11. What the response says about the measurement is what the evidence holds.
  if (resp->measurement != report.measurement)
    return v.fail("measurement", steps::kMeasurementMismatch,
                  "the response's measurement differs from the evidence's (" + report.measurement + ")");
  v.pass("measurement", report.measurement + (policy.expected_measurements.empty()
                                                  ? " (no expected measurement given: not compared)"
                                                  : " is an expected measurement"));
  r.accepted = true;
  return r;
}

}  // namespace a3s::power::verify

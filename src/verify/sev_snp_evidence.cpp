// verify_evidence for SEV-SNP reports: EvidenceOptions → sev_snp::verify_report → Report.
//
// TCB for SEV-SNP needs no collateral: the VCEK is issued for one TCB_VERSION and step 5 of
// verify_report requires it to equal REPORTED_TCB, so collateral_missing never applies (a collateral
// directory is refused as an option that does not apply). AMD's CRL (KDS .../crl) is checked when
// EvidenceOptions::snp_crl is given; otherwise Report::skipped says "crl".
#include <chrono>

#include "a3s/power/error.h"
#include "a3s/power/verify_attestation.h"
#include "base/hex.h"
#include "verify/attestation/simulated_root.h"
#include "verify/evidence_verifiers.h"
#include "verify/sev_snp/default_minimum_tcb.h"
#include "verify/sev_snp/sev_snp_verify.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify {
namespace {

// Steps of verify_report after the minimum TCB comparison (step 9): failing one, or none, means the
// minimum held.
bool minimum_compared(const std::string& failed_step) {
  return failed_step.empty() || failed_step == steps::kMeasurementMismatch ||
         failed_step == steps::kReportDataMismatch;
}

// Steps of verify_report that run after the VCEK TCB comparison (step 5): failing one of them means
// the comparison passed.
bool tcb_compared(const std::string& failed_step) {
  return minimum_compared(failed_step) || failed_step == steps::kDebugEnabled ||
         failed_step == steps::kMigrationAgentAllowed || failed_step == steps::kVmplMismatch ||
         failed_step == steps::kMinimumTcbUnknown || failed_step == steps::kTcbOutOfDate;
}

// True when the root given or a certificate of the chain given is the server's simulated ARK
// (attestation/simulated_root.h): evidence under it is no hardware's, whatever verifies.
bool simulated_chain(const EvidenceOptions& options) {
  for (const std::string* certificates : {&options.root, &options.cert_chain}) {
    if (certificates->empty()) continue;
    const auto loaded = sev_snp::load_certificates(*certificates);
    if (!loaded) continue;
    for (const auto& cert : *loaded) {
      std::string why;
      if (attestation::is_simulated_root(sev_snp::to_der(cert.get()), why)) return true;
    }
  }
  return false;
}

std::string tcb_status(const EvidenceOptions& options, const std::string& failed_step,
                       const sev_snp::VerifyDetails& details) {
  if (options.no_tcb_check) return "not_checked";
  if (failed_step == steps::kTcbOutOfDate) return "out_of_date";
  if (!tcb_compared(failed_step)) return "unknown";
  if (details.minimum_tcb && minimum_compared(failed_step)) return "meets_minimum";
  return "endorsed";
}

const char* source_name(sev_snp::MinimumTcbSource source) {
  switch (source) {
    case sev_snp::MinimumTcbSource::kGiven:
      return "given";
    case sev_snp::MinimumTcbSource::kDefaultTable:
      return "default";
    case sev_snp::MinimumTcbSource::kNone:
      break;
  }
  return "none";
}

}  // namespace

Report verify_sev_snp_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options) {
  if (!options.collateral_dir.empty() || options.tdx_collateral)
    throw Error(codes::kInvalidArgument,
                "a collateral directory applies to TDX quotes only; SEV-SNP TCB is endorsed by the VCEK");
  sev_snp::Endorsements endorsements{options.vcek, options.cert_chain, options.snp_crl};
  sev_snp::Policy policy;
  policy.expected_measurements = options.expected_measurements;
  policy.expected_report_data = options.expected_report_data;
  if (options.snp_minimum_tcb && !options.no_tcb_check) {
    const SnpTcb& m = *options.snp_minimum_tcb;
    policy.minimum_tcb = sev_snp::TcbVersion{m.fmc, m.boot_loader, m.tee, m.snp, m.microcode};
  }
  policy.default_minimum_tcb = options.snp_default_minimum_tcb && !options.no_tcb_check;
  if (options.snp_vmpl && *options.snp_vmpl > 3)
    throw Error(codes::kInvalidArgument, "the expected VMPL must be 0, 1, 2 or 3");
  policy.vmpl = options.snp_vmpl;
  policy.allow_migration_agent = options.snp_allow_migration_agent;
  sev_snp::VerifyOptions vo;
  if (options.at) {
    // system_clock counts nanoseconds in 64 bits: 1677..2262. Certificates are checked from 1970 on.
    constexpr std::time_t kLatest = std::time_t{9'000'000'000};  // year 2255
    if (*options.at < 0 || *options.at > kLatest)
      throw Error(codes::kInvalidArgument, "the verification time must lie between 1970 and 2255");
    vo.at = std::chrono::system_clock::from_time_t(*options.at);
  }
  // The caller's root replaces the pinned ARKs; the pinned ASKs / ASVKs stay available as intermediates.
  if (!options.root.empty()) vo.anchors = sev_snp::TrustAnchors{{options.root}, sev_snp::pinned_amd_intermediates()};

  sev_snp::Report parsed;
  sev_snp::VerifyDetails details;
  const VerifyResult result = sev_snp::verify_report(evidence, endorsements, policy, vo, &parsed, &details);
  // verify_report stores the report once it parses; a parse failure is the only step before that.
  const bool have_parsed =
      result.failed_step != steps::kMalformedEvidence && result.failed_step != steps::kUnsupportedVersion;

  Report r;
  r.tee_type = TeeType::kSevSnp;
  r.accepted = result.accepted;
  r.failed_step = result.failed_step;
  r.message = result.message;
  if (have_parsed) {
    r.measurement = to_hex(parsed.measurement);
    r.report_data = to_hex(parsed.report_data);
    r.vmpl = parsed.vmpl;
    if (parsed.vmpl > 0)
      r.warnings.push_back("the report is from VMPL " + std::to_string(parsed.vmpl) +
                           ", not VMPL 0: software at a more privileged level of the guest (e.g. a "
                           "paravisor) is outside this measurement");
    if ((parsed.policy & sev_snp::policy_bits::kMigrateMa) != 0 && options.snp_allow_migration_agent)
      r.warnings.push_back("the guest policy allows a migration agent (MIGRATE_MA), accepted as asked: it "
                           "can read the guest's memory");
  }
  if (details.product) r.product = std::string(sev_snp::product_name(*details.product));
  r.minimum_tcb_source = source_name(details.minimum_source);
  if (details.minimum_tcb && have_parsed) r.minimum_tcb = sev_snp::to_string(*details.minimum_tcb, parsed.tcb_layout());
  if (details.minimum_source == sev_snp::MinimumTcbSource::kDefaultTable)
    r.minimum_tcb_date = sev_snp::kDefaultMinimumTcbDate;
  r.tcb_status = tcb_status(options, result.failed_step, details);
  if (options.no_tcb_check) r.skipped.push_back("tcb");
  if (options.snp_crl.empty()) r.skipped.push_back("crl");
  r.simulated = simulated_chain(options);
  if (r.simulated && r.accepted && !options.allow_simulated) {
    r.accepted = false;
    r.failed_step = steps::kSimulatedEvidence;
    r.message = std::string("the report verifies under the simulated root (O=") + kSimulatedOrganization +
                "): no hardware attests it (--allow-simulated accepts it for development)";
  }
  return r;
}

}  // namespace a3s::power::verify

// verify_evidence for SEV-SNP reports: EvidenceOptions → sev_snp::verify_report → Report.
//
// TCB for SEV-SNP needs no collateral: the VCEK is issued for one TCB_VERSION and step 5 of
// verify_report requires it to equal REPORTED_TCB, so collateral_missing never applies (a collateral
// directory is refused as an option that does not apply). AMD's CRL (KDS .../crl) is checked when
// EvidenceOptions::snp_crl is given; otherwise Report::skipped says "crl".
#include <chrono>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "verify/evidence_verifiers.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::verify {
namespace {

// Steps of verify_report that run after the VCEK TCB comparison (step 5): failing one of them means
// the comparison passed.
bool tcb_compared(const std::string& failed_step) {
  return failed_step.empty() || failed_step == steps::kDebugEnabled || failed_step == steps::kTcbOutOfDate ||
         failed_step == steps::kMeasurementMismatch || failed_step == steps::kReportDataMismatch;
}

std::string tcb_status(const EvidenceOptions& options, const std::string& failed_step) {
  if (options.no_tcb_check) return "not_checked";
  if (failed_step == steps::kTcbOutOfDate) return "out_of_date";
  if (!tcb_compared(failed_step)) return "unknown";
  if (options.snp_minimum_tcb && failed_step != steps::kDebugEnabled) return "meets_minimum";
  return "endorsed";
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
  sev_snp::VerifyOptions vo;
  if (options.at) {
    // system_clock counts nanoseconds in 64 bits: 1677..2262. Certificates are checked from 1970 on.
    constexpr std::time_t kLatest = std::time_t{9'000'000'000};  // year 2255
    if (*options.at < 0 || *options.at > kLatest)
      throw Error(codes::kInvalidArgument, "the verification time must lie between 1970 and 2255");
    vo.at = std::chrono::system_clock::from_time_t(*options.at);
  }
  if (!options.root.empty()) vo.anchors.arks = {options.root};

  sev_snp::Report parsed;
  const VerifyResult result = sev_snp::verify_report(evidence, endorsements, policy, vo, &parsed);
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
  }
  r.tcb_status = tcb_status(options, result.failed_step);
  if (options.no_tcb_check) r.skipped.push_back("tcb");
  if (options.snp_crl.empty()) r.skipped.push_back("crl");
  return r;
}

}  // namespace a3s::power::verify

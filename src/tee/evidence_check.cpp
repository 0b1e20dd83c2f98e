#include "tee/evidence_check.h"

#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "a3s/power/error.h"

namespace a3s::power::tee {
namespace {

template <typename A>
void require_report_data(const A& actual, const ReportData& expected, const char* what) {
  if (!std::equal(actual.begin(), actual.end(), expected.begin(), expected.end()))
    throw Error(codes::kAttestationFailed,
                std::string(what) + ": report_data differs from the requested value");
}

}  // namespace

verify::sev_snp::Report check_sev_snp_report(std::span<const uint8_t> raw, const ReportData& expected) {
  verify::sev_snp::Report report;
  try {
    report = verify::sev_snp::parse_report(raw);
  } catch (const Error& e) {
    throw Error(codes::kAttestationFailed, std::string("SEV-SNP report: ") + e.what());
  }
  require_report_data(report.report_data, expected, "SEV-SNP report");
  return report;
}

TdxSummary check_tdx_quote(std::span<const uint8_t> raw, const ReportData& expected) {
  TdxSummary s = read_tdx_quote_summary(raw);
  require_report_data(s.report_data, expected, "TDX quote");
  return s;
}

TdxSummary check_tdreport(std::span<const uint8_t> raw, const ReportData& expected) {
  TdxSummary s = read_tdreport_summary(raw);
  require_report_data(s.report_data, expected, "TDREPORT");
  return s;
}

}  // namespace a3s::power::tee

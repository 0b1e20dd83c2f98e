// Checks a provider runs on the evidence it just obtained, before returning it (fail closed): the bytes
// parse with the shared parsers and carry the report_data that was asked for.
#pragma once

#include <span>

#include "attestation/report_data.h"
#include "tee/tdx_summary.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::tee {

// Parses an SEV-SNP ATTESTATION_REPORT (sev_snp_report.h) and compares its REPORT_DATA with `expected`.
// Throws Error(codes::kAttestationFailed) when it does not parse or differs.
verify::sev_snp::Report check_sev_snp_report(std::span<const uint8_t> raw, const ReportData& expected);

// Reads a TDX quote (tdx_summary.h) and compares its REPORTDATA with `expected`; same errors.
TdxSummary check_tdx_quote(std::span<const uint8_t> raw, const ReportData& expected);

// Reads a TDREPORT (tdx_summary.h) and compares its REPORTDATA with `expected`; same errors.
TdxSummary check_tdreport(std::span<const uint8_t> raw, const ReportData& expected);

}  // namespace a3s::power::tee

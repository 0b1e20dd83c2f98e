#include "verify/attestation/evidence_report_data.h"

#include "a3s/power/error.h"
#include "a3s/power/verify.h"
#include "attestation/sev_snp/report.h"
#include "attestation/tdx/quote.h"

namespace a3s::power::verify::attestation {

std::optional<std::array<uint8_t, 64>> evidence_report_data(std::span<const uint8_t> evidence,
                                                            std::string& error) {
  try {
    switch (detect_tee_type(evidence)) {
      case TeeType::kSevSnp:
        return sev_snp::parse_report(evidence).report_data;
      case TeeType::kTdx:
        return tdx::parse_tdx_quote(evidence).body.report_data;
      case TeeType::kUnknown:
        break;
    }
    error = "the report is neither an SEV-SNP report nor a TDX quote (" + std::to_string(evidence.size()) +
            " bytes)";
  } catch (const Error& e) {
    error = std::string("the report does not parse: ") + e.what();
  } catch (const tdx::TdxQuoteError& e) {
    error = std::string("the report does not parse: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace a3s::power::verify::attestation

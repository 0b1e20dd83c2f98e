#include "tee/tdx_summary.h"

#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "a3s/power/error.h"
#include "attestation/tdx/quote.h"

namespace a3s::power::tee {
namespace {

constexpr size_t kTdReportReportDataOffset = 128;
constexpr size_t kTdReportMrtdOffset = 528;

[[noreturn]] void fail(const std::string& what) {
  throw Error(codes::kAttestationFailed, "TDX: " + what);
}

}  // namespace

TdxSummary read_tdx_quote_summary(std::span<const uint8_t> quote) {
  verify::tdx::TdxQuote q;
  try {
    q = verify::tdx::parse_tdx_quote(quote);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (q.header.tee_type != kTdxTeeType) fail("quote TEE type is not TDX (0x81)");
  TdxSummary s;
  s.version = q.header.version;
  s.mrtd = q.body.mr_td;
  s.report_data = q.body.report_data;
  return s;
}

TdxSummary read_tdreport_summary(std::span<const uint8_t> tdreport) {
  if (tdreport.size() != kTdReportSize) fail("TDREPORT is not 1024 bytes");
  TdxSummary s;
  std::copy_n(tdreport.begin() + kTdReportMrtdOffset, s.mrtd.size(), s.mrtd.begin());
  std::copy_n(tdreport.begin() + kTdReportReportDataOffset, s.report_data.size(), s.report_data.begin());
  return s;
}

}  // namespace a3s::power::tee

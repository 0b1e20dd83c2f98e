// libFuzzer target for the TDX quote parser: any byte string must either parse or be rejected with
// TdxQuoteError (one line naming the field and offset). Crashes, sanitizer reports, leaks and any
// other exception are bugs. Seeds: ../shared/testdata/attestation/tdx/*.dat.
#include <cstddef>
#include <cstdint>
#include <span>

#include "attestation/tdx/quote.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace a3s::power::verify::tdx;
  try {
    TdxQuote q = parse_tdx_quote(std::span<const uint8_t>(data, size));
    volatile uint8_t sink = q.body.report_data[0] ^ q.qe_report.report_data[63];
    if (!q.pck_cert_data.empty()) sink = sink ^ q.pck_cert_data.back();
    (void)sink;
  } catch (const TdxQuoteError& e) {
    if (e.what()[0] == '\0') __builtin_trap();
  }
  return 0;
}

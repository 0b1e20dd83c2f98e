#include "tee/tdx_minimal.h"

#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "tee/tee_errors.h"

namespace a3s::power::tee {
namespace {

constexpr size_t kHeaderSize = 48;
constexpr size_t kV5DescriptorSize = 6;  // type u16 + size u32
constexpr size_t kBodyMrtdOffset = 136;
constexpr size_t kBodyReportDataOffset = 520;
constexpr size_t kBodyV4Size = 584;
constexpr size_t kTdReportReportDataOffset = 128;
constexpr size_t kTdReportMrtdOffset = 528;

uint32_t le(std::span<const uint8_t> b, size_t off, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(b[off + i]) << (8 * i);
  return v;
}

[[noreturn]] void fail(const std::string& what) {
  throw Error(codes::kAttestationFailed, "TDX: " + what);
}

}  // namespace

TdxSummary read_tdx_quote_minimal(std::span<const uint8_t> quote) {
  if (quote.size() < kHeaderSize) fail("quote shorter than its 48-byte header");
  TdxSummary s;
  s.version = static_cast<uint16_t>(le(quote, 0, 2));
  if (s.version != 4 && s.version != 5)
    fail("quote version " + std::to_string(s.version) + " (expected 4 or 5)");
  if (le(quote, 4, 4) != kTdxTeeType) fail("quote TEE type is not TDX (0x81)");
  const size_t body = s.version == 4 ? kHeaderSize : kHeaderSize + kV5DescriptorSize;
  if (quote.size() < body + kBodyV4Size) fail("quote shorter than its TD report body");
  std::copy_n(quote.begin() + body + kBodyMrtdOffset, s.mrtd.size(), s.mrtd.begin());
  std::copy_n(quote.begin() + body + kBodyReportDataOffset, s.report_data.size(), s.report_data.begin());
  return s;
}

TdxSummary read_tdreport_minimal(std::span<const uint8_t> tdreport) {
  if (tdreport.size() != kTdReportSize) fail("TDREPORT is not 1024 bytes");
  TdxSummary s;
  std::copy_n(tdreport.begin() + kTdReportMrtdOffset, s.mrtd.size(), s.mrtd.begin());
  std::copy_n(tdreport.begin() + kTdReportReportDataOffset, s.report_data.size(), s.report_data.begin());
  return s;
}

}  // namespace a3s::power::tee

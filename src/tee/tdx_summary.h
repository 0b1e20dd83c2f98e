// The TDX fields the platform layer checks on evidence it just obtained (version, MRTD, REPORTDATA):
// quotes through the shared DCAP quote parser (attestation/tdx/quote.h), TDREPORTs (which that parser
// does not cover) directly. No signature or certificate checks happen here.
//
// Intel TDX Module ABI, TDREPORT_STRUCT (1024 bytes): REPORTMACSTRUCT (256) with REPORTDATA at 128;
// TEE_TCB_INFO (239) at 256; TDINFO_STRUCT at 512 with MRTD at 512 + 16 = 528.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace a3s::power::tee {

inline constexpr size_t kTdReportSize = 1024;  // bytes
inline constexpr uint32_t kTdxTeeType = 0x81;

struct TdxSummary {
  uint16_t version = 0;  // quote version; 0 for a TDREPORT
  std::array<uint8_t, 48> mrtd{};
  std::array<uint8_t, 64> report_data{};
};

// Parses a DCAP quote v4 / v5 for TDX. Throws a3s::power::Error(codes::kAttestationFailed) naming the
// parser's failure (truncated, version not 4 or 5, TEE type not 0x81, bad sizes).
TdxSummary read_tdx_quote_summary(std::span<const uint8_t> quote);

// Reads a TDREPORT_STRUCT (exactly kTdReportSize bytes; throws attestation_failed otherwise).
TdxSummary read_tdreport_summary(std::span<const uint8_t> tdreport);

}  // namespace a3s::power::tee

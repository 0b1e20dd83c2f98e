// MINIMAL TDX layout reads, TO BE REPLACED by the shared TDX quote parser (src/verify/tdx/) once it
// lands: only the fields the platform layer needs to check a quote / TDREPORT it just obtained
// (version, TEE type, MRTD, REPORTDATA). No signature or certificate checks happen here.
//
// Source: Intel "TDX DCAP Quote Generation Library and Quote Verification Library" (quote v4):
//   header 48 bytes: version u16 LE at 0 (4 or 5), attestation key type u16 at 2, TEE type u32 LE at 4
//   (0x81 = TDX); v4: TD quote body at 48 (584 bytes); v5: body descriptor type u16 at 48, size u32 at
//   50, body at 54. In the TD report body: MRTD (48 bytes) at 136, REPORTDATA (64 bytes) at 520.
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

// Reads a DCAP quote v4 / v5 for TDX. Throws a3s::power::Error("attestation_failed") when the buffer is
// too short, the version is not 4 or 5, or the TEE type is not 0x81.
TdxSummary read_tdx_quote_minimal(std::span<const uint8_t> quote);

// Reads a TDREPORT_STRUCT (exactly kTdReportSize bytes; throws attestation_failed otherwise).
TdxSummary read_tdreport_minimal(std::span<const uint8_t> tdreport);

}  // namespace a3s::power::tee

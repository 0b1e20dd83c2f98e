// Attestation evidence and the one interface every platform source implements.
//
// An EvidenceProvider returns hardware-signed evidence that binds the caller's 64-byte report_data
// (report_data.h): an SEV-SNP ATTESTATION_REPORT, a TDX quote, a TDX TDREPORT (local only), or a
// simulated SEV-SNP report. Providers reach devices only below an injectable root path (default "/"),
// so tests run the same code on a fake tree; see detect.h for the detection order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attestation/report_data.h"

namespace a3s::power::tee {

namespace tee_types {
inline constexpr const char* kSevSnp = "sev-snp";
inline constexpr const char* kTdx = "tdx";
inline constexpr const char* kSimulated = "simulated";
}  // namespace tee_types

namespace evidence_formats {
inline constexpr const char* kSevSnpReport = "sev-snp-report";  // 1184-byte ATTESTATION_REPORT (AMD 56860)
inline constexpr const char* kTdxQuote = "tdx-quote";           // DCAP quote v4/v5 (Intel TDX DCAP)
inline constexpr const char* kTdReport = "tdx-tdreport";        // 1024-byte TDREPORT_STRUCT (local MAC only)
}  // namespace evidence_formats

struct Evidence {
  std::string tee_type;  // tee_types::*: "sev-snp" | "tdx" | "simulated"
  std::string format;    // evidence_formats::*: how to parse `raw`
  std::string source;  // where it came from: "configfs-tsm", "/dev/sev-guest", "/dev/tdx_guest", "simulated"
  std::vector<uint8_t> raw;           // the evidence bytes as the platform returned them
  std::vector<uint8_t> certificates;  // SEV-SNP certificate table (configfs-tsm auxblob) or empty
  bool verifiable_remotely = false;   // signed by a key a remote verifier can chain to a vendor root
  bool simulated = false;             // true only for the simulated provider (never hardware)
};

class EvidenceProvider {
 public:
  virtual ~EvidenceProvider() = default;
  // "configfs-tsm" | "/dev/sev-guest" | "/dev/tdx_guest" | "simulated".
  virtual std::string name() const = 0;
  // Evidence whose report_data field equals `report_data` (each provider checks this before returning).
  // Throws a3s::power::Error(codes::kAttestationFailed) when the platform fails or returns evidence that
  // does not parse or does not carry `report_data`. Not required to be thread-safe: callers serialise.
  virtual Evidence get_evidence(const ReportData& report_data) = 0;
};

}  // namespace a3s::power::tee

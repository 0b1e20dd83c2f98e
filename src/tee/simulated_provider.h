// Simulated evidence, for development machines without attestation hardware (tee_policy "development"
// only; detect.h never selects it under "strict").
//
// The evidence is a real-layout SEV-SNP ATTESTATION_REPORT (version 5, AMD 56860; serialize_report)
// signed with ECDSA P-384 / SHA-384 by a "simulated VCEK", under a simulated ASK and ARK. The three keys
// and certificates are generated in memory when the provider is constructed (local_key_hierarchy.h) and
// never stored. Labelled everywhere:
//   * certificate subjects O = "A3S Power SIMULATED", CN = "A3S Power SIMULATED ARK" / "... ASK" /
//     "... VCEK";
//   * Evidence::tee_type = "simulated", Evidence::simulated = true, verifiable_remotely = false;
//   * MEASUREMENT = the ASCII text "A3S-POWER-SIMULATED-MEASUREMENT" zero-padded to 48 bytes.
// The report's REPORTED_TCB / CHIP_ID match the simulated VCEK's extensions (CHIP_ID random per
// provider), so the shared verifier accepts it exactly when the simulated ARK is passed as a trust anchor
// (anchors()); with the default pinned AMD roots it fails at chain_invalid.
// Evidence::certificates holds a certificate table (cert_table.h) with the VCEK, ASK and ARK.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "tee/evidence.h"
#include "attestation/sev_snp/amd_roots.h"
#include "attestation/simulated/local_key_hierarchy.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::tee {

inline constexpr const char* kSimulatedLabel = "A3S Power SIMULATED";
inline constexpr const char* kSimulatedMeasurementText = "A3S-POWER-SIMULATED-MEASUREMENT";

class SimulatedProvider final : public EvidenceProvider {
 public:
  SimulatedProvider();  // generates the key hierarchy; throws Error(codes::kInternal) if OpenSSL fails

  std::string name() const override { return "simulated"; }
  Evidence get_evidence(const ReportData& report_data) override;

  // The simulated ARK (root) and ASK: pass explicitly to a verifier to accept simulated evidence.
  verify::sev_snp::TrustAnchors anchors() const { return hierarchy_.anchors(); }
  const std::string& root_pem() const { return hierarchy_.ark_pem; }
  const std::string& vcek_pem() const { return hierarchy_.vcek_pem; }
  static verify::sev_snp::Measurement measurement();

 private:
  verify::sev_snp::ChipId chip_id_;
  verify::sev_snp::LocalKeyHierarchy hierarchy_;
};

}  // namespace a3s::power::tee

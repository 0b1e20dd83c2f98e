// Verification of an SEV-SNP attestation report against its VCEK, the AMD certificate chain and a
// client policy.
//
// Steps, in order; the first failure stops verification and is named in VerifyResult::failed_step:
//   1. parse the report (56860 ATTESTATION_REPORT)         malformed_evidence / unsupported_version
//   2. a VCEK / VLEK certificate is given and parses        certificate_missing / chain_invalid
//   3. VCEK → ASK → ARK chain to a pinned ARK (57230)       chain_invalid; collateral_expired when a
//                                                           certificate is outside its validity at `at`
//   4. report signature: SIGNATURE_ALGO 1, SIGNING_KEY      signature_invalid
//      matches the certificate kind (VCEK / VLEK), ECDSA
//      P-384/SHA-384 over bytes 0x000–0x29F with the
//      certificate key
//   5. certificate TCB extensions == REPORTED_TCB; hwID     tcb_mismatch
//      == CHIP_ID (unless MASK_CHIP_KEY); product name
//      agrees with the CPUID family (v3+)
//   6. GUEST_POLICY debug bit (19) is 0                     debug_enabled
//   7. REPORTED_TCB ≥ policy.minimum_tcb (every component)  tcb_out_of_date
//   8. MEASUREMENT is one of policy.expected_measurements   measurement_mismatch
//   9. REPORT_DATA == policy.expected_report_data           report_data_mismatch
// Never throws for bad input; every outcome is a VerifyResult.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attestation/sev_snp/amd_roots.h"
#include "attestation/sev_snp/cert_table.h"
#include "attestation/sev_snp/report.h"
#include "attestation/sev_snp/tcb_version.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::sev_snp {

// The certificates that endorse a report.
struct Endorsements {
  std::string vcek;        // VCEK (or VLEK) certificate, PEM or DER; empty → certificate_missing
  std::string cert_chain;  // ASK (or ASVK) and optionally the ARK, PEM or DER; empty → the pinned ASKs
  std::string crl = {};    // AMD's CRL for the product (KDS .../crl), DER or PEM; empty → not checked
};

// What the client accepts. Empty / unset members are not checked.
struct Policy {
  std::vector<Measurement> expected_measurements;  // any of (48-byte SHA-384 launch digests)
  std::optional<ReportData> expected_report_data;  // all 64 bytes must match
  std::optional<TcbVersion> minimum_tcb;           // compared with REPORTED_TCB in the report's layout
};

struct VerifyOptions {
  // Certificate validity time; unset → now. Use a fixed time to re-verify old evidence reproducibly.
  std::optional<std::chrono::system_clock::time_point> at;
  TrustAnchors anchors = pinned_amd_anchors();  // the ARKs a chain must end at
};

// Verifies `report` (kReportSize bytes). When `parsed` is non-null and the report parses, the parsed
// report is stored there (also when a later step fails).
VerifyResult verify_report(std::span<const uint8_t> report, const Endorsements& endorsements,
                           const Policy& policy, const VerifyOptions& options = {}, Report* parsed = nullptr);

// The endorsements a certificate table carries: the VCEK (or, if none, the VLEK) and the chain
// ASK + ARK (concatenated DER).
Endorsements endorsements_from(const CertTable& table);

}  // namespace a3s::power::verify::sev_snp

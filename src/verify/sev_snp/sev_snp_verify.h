// Verification of an SEV-SNP attestation report against its VCEK, the AMD certificate chain and a
// client policy.
//
// Steps, in order; the first failure stops verification and is named in VerifyResult::failed_step:
//   1. parse the report (56860 ATTESTATION_REPORT)         malformed_evidence / unsupported_version
//   2. a VCEK / VLEK certificate is given and parses        certificate_missing / chain_invalid
//   3. the product (Milan / Genoa / Turin, product.h):      chain_invalid
//      the report's CPUID (v3+) and the certificate's
//      productName must not name different products;
//      with the pinned anchors, the product must be known
//      (v3+: by CPUID; v2: by productName, else Milan)
//      and only that product's ARK (with its ASK, or its
//      ASVK for a VLEK-signed report) is trusted.
//      VCEK → ASK → ARK chain to a trusted ARK (57230)      chain_invalid; collateral_expired when a
//                                                           certificate is outside its validity at `at`;
//                                                           with a CRL: collateral_invalid /
//                                                           collateral_expired / certificate_revoked
//   4. report signature: SIGNATURE_ALGO 1, SIGNING_KEY      signature_invalid
//      matches the certificate kind (VCEK / VLEK), ECDSA
//      P-384/SHA-384 over bytes 0x000–0x29F with the
//      certificate key
//   5. certificate TCB extensions == REPORTED_TCB; hwID     tcb_mismatch
//      == CHIP_ID (unless MASK_CHIP_KEY); product name
//      agrees with the CPUID family (v3+)
//   6. GUEST_POLICY debug bit (19) is 0                     debug_enabled
//   7. GUEST_POLICY MIGRATE_MA bit (18) is 0, unless        migration_agent_allowed
//      policy.allow_migration_agent
//   8. VMPL (0x030) == policy.vmpl when given               vmpl_mismatch
//   9. REPORTED_TCB ≥ the minimum (every component): the    tcb_out_of_date; minimum_tcb_unknown when
//      given policy.minimum_tcb, else with                  the default is asked for and the table has
//      policy.default_minimum_tcb the product's entry of    no entry for the product
//      default_minimum_tcb.h
//  10. MEASUREMENT is one of policy.expected_measurements   measurement_mismatch
//  11. REPORT_DATA == policy.expected_report_data           report_data_mismatch
// Never throws for bad input; every outcome is a VerifyResult.
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attestation/sev_snp/amd_roots.h"
#include "attestation/sev_snp/cert_table.h"
#include "attestation/sev_snp/product.h"
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
  // minimum_tcb unset: true → the default table's entry for the report's product (step 9); false → no
  // minimum is compared. The verify_evidence facade sets it (fail closed); tests of this library and
  // simulated evidence leave it off.
  bool default_minimum_tcb = false;
  std::optional<uint32_t> vmpl;  // the report's VMPL must equal this (0..3: SEV-SNP ABI spec, VMPL field)
  // GUEST_POLICY MIGRATE_MA (bit 18: a migration agent may be associated with the guest, and can read
  // and move its memory) is refused unless this is true.
  bool allow_migration_agent = false;
};

struct VerifyOptions {
  // Certificate validity time; unset → now. Use a fixed time to re-verify old evidence reproducibly.
  std::optional<std::chrono::system_clock::time_point> at;
  // The ARKs a chain must end at (and intermediates when the evidence brings none). Unset: the pinned
  // anchors of the report's product (step 3, amd_roots.h).
  std::optional<TrustAnchors> anchors;
};

// Where the minimum TCB of step 9 came from.
enum class MinimumTcbSource { kNone, kGiven, kDefaultTable };

// What verification found out besides the verdict (filled as far as verification got).
struct VerifyDetails {
  std::optional<AmdProduct> product;      // step 3: the product the report is of, when known
  std::optional<TcbVersion> minimum_tcb;  // step 9: the minimum compared with REPORTED_TCB
  MinimumTcbSource minimum_source = MinimumTcbSource::kNone;
};

// Verifies `report` (kReportSize bytes). When `parsed` is non-null and the report parses, the parsed
// report is stored there (also when a later step fails); `details` likewise.
VerifyResult verify_report(std::span<const uint8_t> report, const Endorsements& endorsements,
                           const Policy& policy, const VerifyOptions& options = {}, Report* parsed = nullptr,
                           VerifyDetails* details = nullptr);

// The endorsements a certificate table carries: the VCEK (or, if none, the VLEK) and the chain
// ASK + ARK (concatenated DER).
Endorsements endorsements_from(const CertTable& table);

}  // namespace a3s::power::verify::sev_snp

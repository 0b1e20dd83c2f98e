// Client-side verification of an Intel TDX DCAP quote (v4 / v5) with an ECDSA P-256 attestation key.
//
// Steps, in order; the first failure stops verification and is named in VerifyResult::failed_step:
//   1. parse                 malformed_evidence / unsupported_version (attestation/tdx/quote.h)
//   2. quote signature       signature_invalid: ECDSA P-256/SHA-256 by the attestation key over the
//                            signed bytes (v4: header || body; v5: header || body descriptor || body)
//   3. PCK chain             certificate_missing (the quote's nested certification data is not
//                            type 5 and no chain is given; type 5 data that is not PEM: chain_invalid),
//                            chain_invalid (PCK -> PCK Platform/Processor CA -> root, at `at`, or the
//                            leaf has no SGX extensions), certificate_revoked (the collateral's
//                            CRLs, applied whenever collateral is given, even with skip_tcb_check),
//                            collateral_invalid / collateral_expired (bad, missing or stale CRL)
//   4. QE report             qe_report_invalid: ECDSA P-256 signature by the PCK key over the 384-byte
//                            QE report; QE REPORTDATA[0..32) == SHA-256(attestation key || QE auth
//                            data) and REPORTDATA[32..64) == 0
//   5. debug                 debug_enabled: TDATTRIBUTES bit 0
//   6. collateral            only when collateral is given: collateral_invalid (TCB signing chain to
//                            the root, and its leaf must be Intel's TCB Signing certificate:
//                            check_tcb_signing_role; JSON signatures, format), collateral_expired
//                            (issueDate after / nextUpdate before `at`). TCB Info only unless
//                            skip_tcb_check; QE Identity always.
//   7. platform TCB          unless skip_tcb_check (and then collateral_missing without collateral):
//                            collateral_invalid (FMSPC/PCE-ID), tcb_mismatch (TDX module identity),
//                            tcb_out_of_date (no level matches, or the platform or TDX module status
//                            is not in accepted_tcb_statuses)
//   8. QE identity           always, also with skip_tcb_check: qe_identity_mismatch unless the QE
//                            report's MRSIGNER, ISVPRODID, MISCSELECT and ATTRIBUTES (under their
//                            masks) are QE Identity's (collateral given) or Intel's TD QE's
//                            (intel_td_qe_identity, no collateral)
//   9. QE TCB                unless skip_tcb_check: tcb_out_of_date (QE ISVSVN below every level, or
//                            its status not accepted)
//  10. advisories            unless skip_tcb_check: advisory_rejected when a matching level (platform,
//                            TDX module, QE) lists one of rejected_advisory_ids, or with
//                            reject_advisory_statuses when a status is SWHardeningNeeded,
//                            ConfigurationNeeded or ConfigurationAndSWHardeningNeeded
//  11. policy                measurement_mismatch (MRTD, RTMRn, MRCONFIGID, MROWNER: the message names
//                            the register), report_data_mismatch
// Source: Intel "TDX DCAP Quoting Library API" (quote layout, certification data 5 and 6); Intel PCS
// API (TCB Info v3, QE Identity v2); Intel "SGX PCK Certificate and CRL Profile".
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "verify/tdx/pck_extensions.h"
#include "verify/tdx/tdx_collateral.h"
#include "attestation/tdx/quote.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::tdx {

struct TdxVerifyOptions {
  // Trust anchor (PEM). Unset: the pinned Intel SGX Root CA (intel_root_ca.h). The CLI's --root.
  std::optional<std::string> root_pem;
  // PCK certificate followed by its CA chain (PEM). Unset: the quote's certification data type 5.
  std::optional<std::string> pck_chain_pem;
  // TCB Info, QE Identity, TCB signing chain, CRLs. Required unless skip_tcb_check; its CRLs are
  // applied to the PCK chain in any case.
  std::optional<TdxCollateral> collateral;
  // Verify signatures and chains only; the result then carries tcb_status "not_checked".
  bool skip_tcb_check = false;
  // TCB statuses (platform and QE) that are accepted.
  std::vector<std::string> accepted_tcb_statuses = {"UpToDate", "SWHardeningNeeded"};
  // Advisory policy (step 10): advisory IDs ("INTEL-SA-00615", compared ignoring case) that refuse the
  // quote when a matching TCB level lists them, and whether any advisory status refuses it.
  std::vector<std::string> rejected_advisory_ids;
  bool reject_advisory_statuses = false;
  // Time for every validity check (certificates, CRLs, collateral), Unix seconds. Unset: now.
  std::optional<std::time_t> at;
  // Policy: MRTD must equal one of these (empty: not checked).
  std::vector<Measurement48> expected_mrtd;
  // Policy: RTMRn must equal one of expected_rtmr[n] (empty list: RTMRn not checked).
  std::array<std::vector<Measurement48>, 4> expected_rtmr;
  // Policy: MRCONFIGID / MROWNER must equal these (unset: not checked).
  std::optional<Measurement48> expected_mr_config_id;
  std::optional<Measurement48> expected_mr_owner;
  // Policy: REPORTDATA must equal this (64 bytes).
  std::optional<std::array<uint8_t, 64>> expected_report_data;
};

// What verification established, for reports (valid up to the step that failed).
struct TdxVerifyDetails {
  std::optional<TdxQuote> quote;      // set once parsing succeeded
  std::optional<PckExtensions> pck;   // set once the PCK chain verified
  std::string tcb_status;             // platform TCB status, or "not_checked"
  std::string qe_tcb_status;          // QE TCB status, or "not_checked"
  std::string tdx_module_tcb_status;  // from tdxModuleIdentities (TDX 1.5); empty when not used
  // advisoryIDs of the matching platform, TDX module and QE levels (in that order, no duplicates);
  // set as soon as each level matched, so a refused status still shows them.
  std::vector<std::string> advisory_ids;
};

// TCB statuses for which Intel lists advisories to act on (refused by reject_advisory_statuses).
bool is_advisory_status(const std::string& status);

// Step 5 on its own: debug_enabled when TDATTRIBUTES bit 0 (DEBUG) is set, else ok.
VerifyResult check_td_attributes(const TdReportBody& body);

VerifyResult verify_tdx_quote(std::span<const uint8_t> quote, const TdxVerifyOptions& options,
                              TdxVerifyDetails* details = nullptr);

}  // namespace a3s::power::verify::tdx

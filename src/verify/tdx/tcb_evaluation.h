// TCB status of a TDX platform and of its TD Quoting Enclave, from verified collateral.
//
// Source: Intel DCAP Quote Verification Library behaviour as documented with the PCS API:
//   TDX TCB level: the first level in tcbLevels (highest first) whose 16 sgxtcbcomponents are all <=
//   the PCK certificate's SGX TCB components, whose pcesvn <= the certificate's PCESVN, and whose 16
//   tdxtcbcomponents are all <= the quote's TEE_TCB_SVN bytes; its tcbStatus is the platform status.
//   The TDX module must match tdxModule (MRSIGNERSEAM equal, SEAMATTRIBUTES & mask equal).
//   QE: MRSIGNER, ISVPRODID, MISCSELECT & mask and ATTRIBUTES & mask must match the QE Identity; the
//   first level with isvsvn <= the QE report's ISVSVN gives the QE status.
//   TDX module major version TEE_TCB_SVN[1] > 0 (TDX 1.5): when TCB Info lists tdxModuleIdentities,
//   the entry "TDX_NN" (NN = that byte in hex) must match MRSIGNERSEAM / SEAMATTRIBUTES, and its first
//   level with isvsvn <= TEE_TCB_SVN[0] gives the module status; the tdxtcbcomponents comparison then
//   starts at index 2 (bytes 0 and 1 are the module's own SVN and version). Without
//   tdxModuleIdentities the tdxModule entry applies to every version.
#pragma once

#include <string>
#include <vector>

#include "verify/tdx/pck_extensions.h"
#include "verify/tdx/qe_identity.h"
#include "verify/tdx/tcb_info.h"
#include "attestation/tdx/quote.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::tdx {

struct TcbEvaluation {
  static TcbEvaluation failed(VerifyResult r) { return {std::move(r), {}, {}, {}}; }

  VerifyResult result;        // ok, or tcb_mismatch / collateral_invalid / tcb_out_of_date
  std::string tcb_status;     // the matching level's tcbStatus; empty when none matched
  std::string module_status;  // TDX module status from tdxModuleIdentities; empty when not used
  // advisoryIDs of the matching level(s) (platform level, then the TDX module level), in collateral
  // order without duplicates; empty when none matched or they list none.
  std::vector<std::string> advisory_ids;
};

// Platform TCB status from TCB Info (already signature-checked).
TcbEvaluation evaluate_tdx_tcb(const TdxTcbInfo& info, const PckExtensions& pck, const TdReportBody& body);

// The QE report is the enclave `identity` names: MRSIGNER and ISVPRODID equal, MISCSELECT &
// miscselectMask == miscselect, ATTRIBUTES & attributesMask == attributes (compared in this order). Otherwise
// qe_identity_mismatch, the message naming the field and `whose` ("QE Identity", "Intel's TD QE").
VerifyResult check_qe_identity(const QeIdentity& identity, const QeReport& qe, const std::string& whose);

// check_qe_identity against QE Identity (already signature-checked), then the QE status: the first
// level with isvsvn <= the QE report's ISVSVN (tcb_out_of_date when none); advisory_ids are that level's.
TcbEvaluation evaluate_qe_identity(const QeIdentity& identity, const QeReport& qe);

}  // namespace a3s::power::verify::tdx

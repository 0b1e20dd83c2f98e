// TCB status of a TDX platform and of its TD Quoting Enclave, from verified collateral.
//
// Source: Intel DCAP Quote Verification Library behaviour as documented with the PCS API:
//   TDX TCB level: the first level in tcbLevels (highest first) whose 16 sgxtcbcomponents are all <=
//   the PCK certificate's SGX TCB components, whose pcesvn <= the certificate's PCESVN, and whose 16
//   tdxtcbcomponents are all <= the quote's TEE_TCB_SVN bytes; its tcbStatus is the platform status.
//   The TDX module must match tdxModule (MRSIGNERSEAM equal, SEAMATTRIBUTES & mask equal).
//   QE: MISCSELECT & mask, ATTRIBUTES & mask, MRSIGNER and ISVPRODID must match the QE Identity; the
//   first level with isvsvn <= the QE report's ISVSVN gives the QE status.
// Not handled: TCB Info's tdxModuleIdentities (TDX 1.5 per-module-version identities) — absent from
// the collateral this was written against.
#pragma once

#include <string>

#include "verify/tdx/pck_extensions.h"
#include "verify/tdx/qe_identity.h"
#include "verify/tdx/tcb_info.h"
#include "verify/tdx/tdx_quote.h"
#include "verify/verify_result.h"

namespace a3s::power::verify::tdx {

struct TcbEvaluation {
  VerifyResult result;     // ok, or tcb_mismatch / collateral_invalid / tcb_out_of_date
  std::string tcb_status;  // the matching level's tcbStatus; empty when none matched
};

// Platform TCB status from TCB Info (already signature-checked).
TcbEvaluation evaluate_tdx_tcb(const TdxTcbInfo& info, const PckExtensions& pck, const TdReportBody& body);

// QE status from QE Identity (already signature-checked); identity mismatch → qe_identity_mismatch.
TcbEvaluation evaluate_qe_identity(const QeIdentity& identity, const QeReport& qe);

}  // namespace a3s::power::verify::tdx

#include "verify/tdx/tcb_evaluation.h"

#include <algorithm>
#include <span>

#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {
namespace {

std::string hex(std::span<const uint8_t> b) {
  return to_hex(b);
}

template <size_t N>
bool masked_equal(const std::array<uint8_t, N>& value, const std::array<uint8_t, N>& mask,
                  const std::array<uint8_t, N>& expected) {
  for (size_t i = 0; i < N; ++i) {
    if ((value[i] & mask[i]) != expected[i]) return false;
  }
  return true;
}

template <size_t N>
bool all_at_least(const std::array<uint8_t, N>& have, const std::array<uint8_t, N>& need) {
  for (size_t i = 0; i < N; ++i) {
    if (have[i] < need[i]) return false;
  }
  return true;
}

}  // namespace

TcbEvaluation evaluate_tdx_tcb(const TdxTcbInfo& info, const PckExtensions& pck, const TdReportBody& body) {
  if (info.fmspc != pck.fmspc) {
    return {VerifyResult::fail(steps::kCollateralInvalid, "TCB Info is for FMSPC " + hex(info.fmspc) +
                                                              ", the PCK certificate's FMSPC is " +
                                                              hex(pck.fmspc)),
            {}};
  }
  if (info.pce_id != pck.pce_id) {
    return {VerifyResult::fail(steps::kCollateralInvalid, "TCB Info is for PCE-ID " + hex(info.pce_id) +
                                                              ", the PCK certificate's PCE-ID is " +
                                                              hex(pck.pce_id)),
            {}};
  }
  if (info.tdx_module) {
    const TdxModuleIdentity& m = *info.tdx_module;
    if (m.mrsigner != body.mr_signer_seam) {
      return {VerifyResult::fail(steps::kTcbMismatch, "MRSIGNERSEAM " + hex(body.mr_signer_seam) +
                                                          " is not TCB Info's TDX module signer " +
                                                          hex(m.mrsigner)),
              {}};
    }
    if (!masked_equal(body.seam_attributes, m.attributes_mask, m.attributes)) {
      return {VerifyResult::fail(steps::kTcbMismatch, "SEAMATTRIBUTES " + hex(body.seam_attributes) +
                                                          " do not match TCB Info's TDX module attributes"),
              {}};
    }
  }
  for (const TdxTcbLevel& level : info.levels) {
    if (all_at_least(pck.sgx_tcb_components, level.sgx_components) && pck.pce_svn >= level.pce_svn &&
        all_at_least(body.tee_tcb_svn, level.tdx_components)) {
      return {VerifyResult::ok(), level.status};
    }
  }
  return {VerifyResult::fail(steps::kTcbOutOfDate, "no TCB level of TCB Info covers CPUSVN components " +
                                                       hex(pck.sgx_tcb_components) + ", PCESVN " +
                                                       std::to_string(pck.pce_svn) + ", TEE_TCB_SVN " +
                                                       hex(body.tee_tcb_svn)),
          {}};
}

TcbEvaluation evaluate_qe_identity(const QeIdentity& id, const QeReport& qe) {
  auto mismatch = [](const std::string& what) {
    return TcbEvaluation{VerifyResult::fail(steps::kQeIdentityMismatch, what), {}};
  };
  if (!masked_equal(qe.misc_select, id.misc_select_mask, id.misc_select)) {
    return mismatch("QE MISCSELECT " + hex(qe.misc_select) + " does not match QE Identity");
  }
  if (!masked_equal(qe.attributes, id.attributes_mask, id.attributes)) {
    return mismatch("QE ATTRIBUTES " + hex(qe.attributes) + " do not match QE Identity");
  }
  if (qe.mr_signer != id.mrsigner) {
    return mismatch("QE MRSIGNER " + hex(qe.mr_signer) + " is not QE Identity's " + hex(id.mrsigner));
  }
  if (qe.isv_prod_id != id.isv_prod_id) {
    return mismatch("QE ISVPRODID " + std::to_string(qe.isv_prod_id) + " is not QE Identity's " +
                    std::to_string(id.isv_prod_id));
  }
  for (const QeTcbLevel& level : id.levels) {
    if (qe.isv_svn >= level.isv_svn) return {VerifyResult::ok(), level.status};
  }
  return {VerifyResult::fail(steps::kTcbOutOfDate,
                             "QE ISVSVN " + std::to_string(qe.isv_svn) + " is below every QE Identity level"),
          {}};
}

}  // namespace a3s::power::verify::tdx

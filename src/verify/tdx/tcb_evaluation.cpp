#include "verify/tdx/tcb_evaluation.h"

#include <algorithm>
#include <cctype>
#include <span>

#include "base/hex.h"
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

void add_advisories(std::vector<std::string>& out, const std::vector<std::string>& ids) {
  for (const std::string& id : ids)
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
}

}  // namespace

TcbEvaluation evaluate_tdx_tcb(const TdxTcbInfo& info, const PckExtensions& pck, const TdReportBody& body) {
  if (info.fmspc != pck.fmspc) {
    return TcbEvaluation::failed(VerifyResult::fail(
        steps::kCollateralInvalid,
        "TCB Info is for FMSPC " + hex(info.fmspc) + ", the PCK certificate's FMSPC is " + hex(pck.fmspc)));
  }
  if (info.pce_id != pck.pce_id) {
    return TcbEvaluation::failed(VerifyResult::fail(
        steps::kCollateralInvalid, "TCB Info is for PCE-ID " + hex(info.pce_id) +
                                       ", the PCK certificate's PCE-ID is " + hex(pck.pce_id)));
  }
  const uint8_t module_version = body.tee_tcb_svn[1];
  std::string module_status;
  std::vector<std::string> module_advisories;
  auto check_module = [&](const TdxModuleIdentity& m, const std::string& name) -> VerifyResult {
    if (m.mrsigner != body.mr_signer_seam) {
      return VerifyResult::fail(steps::kTcbMismatch, "MRSIGNERSEAM " + hex(body.mr_signer_seam) + " is not " +
                                                         name + "'s signer " + hex(m.mrsigner));
    }
    if (!masked_equal(body.seam_attributes, m.attributes_mask, m.attributes)) {
      return VerifyResult::fail(steps::kTcbMismatch,
                                "SEAMATTRIBUTES " + hex(body.seam_attributes) + " do not match " + name);
    }
    return VerifyResult::ok();
  };
  if (module_version > 0 && !info.tdx_module_identities.empty()) {
    std::string id = "TDX_" + hex(std::span<const uint8_t>(&module_version, 1));
    for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto it = std::find_if(info.tdx_module_identities.begin(), info.tdx_module_identities.end(),
                           [&](const TdxModuleVersionIdentity& v) {
                             return v.id.size() == id.size() &&
                                    std::equal(v.id.begin(), v.id.end(), id.begin(), [](char a, char b) {
                                      return std::tolower(static_cast<unsigned char>(a)) ==
                                             std::tolower(static_cast<unsigned char>(b));
                                    });
                           });
    if (it == info.tdx_module_identities.end()) {
      return TcbEvaluation::failed(
          VerifyResult::fail(steps::kTcbMismatch, "TCB Info has no TDX module identity " + id));
    }
    if (VerifyResult r = check_module(it->identity, "TCB Info's " + it->id); !r.accepted)
      return TcbEvaluation::failed(r);
    for (const auto& level : it->levels) {
      if (body.tee_tcb_svn[0] >= level.isv_svn) {
        module_status = level.status;
        module_advisories = level.advisory_ids;
        break;
      }
    }
    if (module_status.empty()) {
      return TcbEvaluation::failed(VerifyResult::fail(
          steps::kTcbOutOfDate,
          "TDX module SVN " + std::to_string(body.tee_tcb_svn[0]) + " is below every level of " + it->id));
    }
  } else if (info.tdx_module) {
    if (VerifyResult r = check_module(*info.tdx_module, "TCB Info's TDX module"); !r.accepted)
      return TcbEvaluation::failed(r);
  }
  // With a module version, bytes 0 and 1 of TEE_TCB_SVN are the module's SVN and version, not
  // TCB components.
  const size_t first = module_version > 0 ? 2 : 0;
  auto tdx_at_least = [&](const std::array<uint8_t, 16>& need) {
    for (size_t i = first; i < 16; ++i) {
      if (body.tee_tcb_svn[i] < need[i]) return false;
    }
    return true;
  };
  for (const TdxTcbLevel& level : info.levels) {
    if (all_at_least(pck.sgx_tcb_components, level.sgx_components) && pck.pce_svn >= level.pce_svn &&
        tdx_at_least(level.tdx_components)) {
      TcbEvaluation found{VerifyResult::ok(), level.status, module_status, {}};
      add_advisories(found.advisory_ids, level.advisory_ids);
      add_advisories(found.advisory_ids, module_advisories);
      return found;
    }
  }
  return TcbEvaluation::failed(VerifyResult::fail(
      steps::kTcbOutOfDate, "no TCB level of TCB Info covers CPUSVN components " +
                                hex(pck.sgx_tcb_components) + ", PCESVN " + std::to_string(pck.pce_svn) +
                                ", TEE_TCB_SVN " + hex(body.tee_tcb_svn)));
}

VerifyResult check_qe_identity(const QeIdentity& id, const QeReport& qe, const std::string& whose) {
  auto mismatch = [](const std::string& what) { return VerifyResult::fail(steps::kQeIdentityMismatch, what); };
  if (qe.mr_signer != id.mrsigner) {
    return mismatch("QE MRSIGNER " + hex(qe.mr_signer) + " is not " + whose + "'s " + hex(id.mrsigner));
  }
  if (qe.isv_prod_id != id.isv_prod_id) {
    return mismatch("QE ISVPRODID " + std::to_string(qe.isv_prod_id) + " is not " + whose + "'s " +
                    std::to_string(id.isv_prod_id));
  }
  if (!masked_equal(qe.misc_select, id.misc_select_mask, id.misc_select)) {
    return mismatch("QE MISCSELECT " + hex(qe.misc_select) + " does not match " + whose + " (" +
                    hex(id.misc_select) + " under mask " + hex(id.misc_select_mask) + ")");
  }
  if (!masked_equal(qe.attributes, id.attributes_mask, id.attributes)) {
    return mismatch("QE ATTRIBUTES " + hex(qe.attributes) + " do not match " + whose + " (" +
                    hex(id.attributes) + " under mask " + hex(id.attributes_mask) + ")");
  }
  return VerifyResult::ok();
}

TcbEvaluation evaluate_qe_identity(const QeIdentity& id, const QeReport& qe) {
  if (VerifyResult r = check_qe_identity(id, qe, "QE Identity"); !r.accepted) return TcbEvaluation::failed(r);
  for (const QeTcbLevel& level : id.levels) {
    if (qe.isv_svn >= level.isv_svn) return {VerifyResult::ok(), level.status, {}, level.advisory_ids};
  }
  return TcbEvaluation::failed(VerifyResult::fail(
      steps::kTcbOutOfDate, "QE ISVSVN " + std::to_string(qe.isv_svn) + " is below every QE Identity level"));
}

}  // namespace a3s::power::verify::tdx

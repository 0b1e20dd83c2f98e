// TDX TCB Info (version 3, id "TDX"): the TCB levels Intel publishes for one FMSPC.
//
// Source: Intel PCS API, "TCB Info V3" JSON: tcbInfo { id, version, issueDate, nextUpdate, fmspc,
// pceId, tcbType, tcbEvaluationDataNumber, tdxModule { mrsigner, attributes, attributesMask },
// tdxModuleIdentities [ { id, mrsigner, attributes, attributesMask, tcbLevels [ { tcb { isvsvn },
// tcbDate, tcbStatus, advisoryIDs } ] } ] (optional),
// tcbLevels [ { tcb { sgxtcbcomponents[16] {svn}, pcesvn, tdxtcbcomponents[16] {svn} }, tcbDate,
// tcbStatus, advisoryIDs } ] } (levels are listed from the highest TCB down).
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {

struct TdxModuleIdentity {
  std::array<uint8_t, 48> mrsigner{};   // must equal the quote's MRSIGNERSEAM
  std::array<uint8_t, 8> attributes{};  // SEAMATTRIBUTES & mask must equal this
  std::array<uint8_t, 8> attributes_mask{};
};

// One entry of tdxModuleIdentities: the identity and TCB levels of TDX module major version N
// (id "TDX_NN", NN = TEE_TCB_SVN[1] as two hex digits).
struct TdxModuleVersionIdentity {
  std::string id;
  TdxModuleIdentity identity;
  struct Level {
    uint8_t isv_svn = 0;  // compared with TEE_TCB_SVN[0] (the module's minor SVN)
    std::string status;
    std::vector<std::string> advisory_ids;
  };
  std::vector<Level> levels;  // highest first
};

struct TdxTcbLevel {
  std::array<uint8_t, 16> sgx_components{};  // compared with the PCK cert's SGX TCB components
  uint16_t pce_svn = 0;                      // compared with the PCK cert's PCESVN
  std::array<uint8_t, 16> tdx_components{};  // compared with the quote's TEE_TCB_SVN bytes
  std::string status;                        // "UpToDate", "SWHardeningNeeded", "OutOfDate", ...
  std::string tcb_date;
  std::vector<std::string> advisory_ids;     // "advisoryIDs" (optional): Intel security advisories
};

struct TdxTcbInfo : CollateralHeader {
  std::array<uint8_t, 6> fmspc{};
  std::array<uint8_t, 2> pce_id{};
  std::optional<TdxModuleIdentity> tdx_module;
  std::vector<TdxModuleVersionIdentity> tdx_module_identities;  // empty when absent
  std::vector<TdxTcbLevel> levels;
};

// Parses the text of the signed "tcbInfo" object. Throws std::runtime_error naming the field when
// the JSON is not TCB Info v3 for TDX. A component "svn" must be 0..255; values 0xFF80..0xFFFF are
// read as the sign-extended byte they are (Intel's sample collateral writes bytes >= 0x80 that way).
TdxTcbInfo parse_tdx_tcb_info(std::string_view tcb_info_object);

}  // namespace a3s::power::verify::tdx

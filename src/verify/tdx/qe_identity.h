// TD Quoting Enclave Identity (version 2, id "TD_QE"): which enclave may act as the TD QE and the
// TCB status of each of its ISV SVNs.
//
// Source: Intel PCS API, "Enclave Identity V2" JSON: enclaveIdentity { id, version, issueDate,
// nextUpdate, tcbEvaluationDataNumber, miscselect, miscselectMask, attributes, attributesMask,
// mrsigner, isvprodid, tcbLevels [ { tcb { isvsvn }, tcbDate, tcbStatus } ] } (highest level first).
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {

struct QeTcbLevel {
  uint16_t isv_svn = 0;
  std::string status;
};

struct QeIdentity : CollateralHeader {
  std::array<uint8_t, 4> misc_select{};       // report-order bytes; the QE report's MISCSELECT & mask
  std::array<uint8_t, 4> misc_select_mask{};  // must equal misc_select
  std::array<uint8_t, 16> attributes{};       // ATTRIBUTES & mask must equal this
  std::array<uint8_t, 16> attributes_mask{};
  std::array<uint8_t, 32> mrsigner{};
  uint16_t isv_prod_id = 0;
  std::vector<QeTcbLevel> levels;
};

// Parses the text of the signed "enclaveIdentity" object; throws std::runtime_error naming the field
// when it is not QE Identity v2 for the TD QE.
QeIdentity parse_qe_identity(std::string_view enclave_identity_object);

}  // namespace a3s::power::verify::tdx

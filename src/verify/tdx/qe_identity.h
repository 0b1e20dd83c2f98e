// TD Quoting Enclave Identity (version 2, id "TD_QE"): which enclave may act as the TD QE and the
// TCB status of each of its ISV SVNs.
//
// Source: Intel PCS API, "Enclave Identity V2" JSON: enclaveIdentity { id, version, issueDate,
// nextUpdate, tcbEvaluationDataNumber, miscselect, miscselectMask, attributes, attributesMask,
// mrsigner, isvprodid, tcbLevels [ { tcb { isvsvn }, tcbDate, tcbStatus, advisoryIDs } ] } (highest level
// first).
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
  std::vector<std::string> advisory_ids;  // "INTEL-SA-00615", ...; empty when the level lists none
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

// Intel's TD Quoting Enclave as Intel PCS publishes it (GET /tdx/certification/v4/qe/identity, id
// "TD_QE"; the same values in every issue so far): MRSIGNER
// dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5, ISVPRODID 2, MISCSELECT 00000000
// under mask FFFFFFFF, ATTRIBUTES 11000000000000000000000000000000 under mask
// FBFFFFFFFFFFFFFF0000000000000000 (INIT and MODE64BIT set, DEBUG clear; byte order as in the QE
// report). The QE report of every real TDX quote carries these (e.g. the testdata's
// tdx-v4-edgeless.dat: MRSIGNER dc9e2a7c..., ISVPRODID 2, ATTRIBUTES 15000000...). Used when no QE
// Identity collateral is given, so that the quoting enclave is pinned even without collateral. It has
// no TCB levels and no dates: the QE's TCB status needs the collateral.
const QeIdentity& intel_td_qe_identity();

}  // namespace a3s::power::verify::tdx

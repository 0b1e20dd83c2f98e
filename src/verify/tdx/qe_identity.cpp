#include "verify/tdx/qe_identity.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "base/hex.h"
#include "verify/tdx/collateral_json.h"

namespace a3s::power::verify::tdx {
namespace {

using nlohmann::json;

const CollateralJson kJson("QE Identity");

uint16_t u16(const json& obj, const char* name) {
  const json& v = kJson.field(obj, name);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xFFFF) kJson.bad(std::string(name) + " is not 0..65535");
  return static_cast<uint16_t>(v.get<uint64_t>());
}

}  // namespace

QeIdentity parse_qe_identity(std::string_view enclave_identity_object) {
  QeIdentity id;
  const json j = kJson.parse_header(enclave_identity_object, "TD_QE", 2, id);
  id.misc_select = kJson.hex<4>(j, "miscselect");
  id.misc_select_mask = kJson.hex<4>(j, "miscselectMask");
  id.attributes = kJson.hex<16>(j, "attributes");
  id.attributes_mask = kJson.hex<16>(j, "attributesMask");
  id.mrsigner = kJson.hex<32>(j, "mrsigner");
  id.isv_prod_id = u16(j, "isvprodid");
  const json& levels = kJson.field(j, "tcbLevels");
  if (!levels.is_array() || levels.empty()) kJson.bad("\"tcbLevels\" is not a non-empty array");
  for (const json& level : levels) {
    QeTcbLevel l;
    l.isv_svn = u16(kJson.field(level, "tcb"), "isvsvn");
    l.status = kJson.text(level, "tcbStatus");
    l.advisory_ids = kJson.advisory_ids(level);
    id.levels.push_back(std::move(l));
  }
  return id;
}

const QeIdentity& intel_td_qe_identity() {
  static const QeIdentity id = [] {
    QeIdentity q;
    q.id = "TD_QE";
    q.version = 2;
    decode_hex("00000000", q.misc_select);
    decode_hex("ffffffff", q.misc_select_mask);
    decode_hex("11000000000000000000000000000000", q.attributes);
    decode_hex("fbffffffffffffff0000000000000000", q.attributes_mask);
    decode_hex("dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5", q.mrsigner);
    q.isv_prod_id = 2;
    return q;
  }();
  return id;
}

}  // namespace a3s::power::verify::tdx

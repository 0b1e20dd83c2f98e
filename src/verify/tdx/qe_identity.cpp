#include "verify/tdx/qe_identity.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

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
  json j = json::parse(enclave_identity_object, nullptr, false);
  if (j.is_discarded() || !j.is_object()) kJson.bad("not a JSON object");
  QeIdentity id;
  id.id = kJson.text(j, "id");
  if (id.id != "TD_QE") kJson.bad("id \"" + id.id + "\" is not \"TD_QE\"");
  const json& version = kJson.field(j, "version");
  if (!version.is_number_integer() || version.get<int>() != 2) kJson.bad("version is not 2");
  id.version = 2;
  id.issue_date = kJson.date(j, "issueDate");
  id.next_update = kJson.date(j, "nextUpdate");
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
    id.levels.push_back(std::move(l));
  }
  return id;
}

}  // namespace a3s::power::verify::tdx

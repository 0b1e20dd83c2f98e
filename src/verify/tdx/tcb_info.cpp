#include "verify/tdx/tcb_info.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "verify/tdx/collateral_json.h"

namespace a3s::power::verify::tdx {
namespace {

using nlohmann::json;

const CollateralJson kJson("TCB Info");

uint8_t component_svn_field(const json& component, const char* name, const std::string& where) {
  const json& v = kJson.field(component, name);
  if (!v.is_number_unsigned()) kJson.bad(where + " svn is not an unsigned integer");
  uint64_t svn = v.get<uint64_t>();
  if (svn <= 0xFF) return static_cast<uint8_t>(svn);
  if (svn >= 0xFF80 && svn <= 0xFFFF) return static_cast<uint8_t>(svn & 0xFF);  // sign-extended byte
  kJson.bad(where + " svn " + std::to_string(svn) + " is not a one-byte SVN");
}

uint8_t component_svn(const json& component, const std::string& where) {
  return component_svn_field(component, "svn", where);
}

std::array<uint8_t, 16> components(const json& tcb, const char* name) {
  const json& list = kJson.field(tcb, name);
  if (!list.is_array() || list.size() != 16) kJson.bad(std::string("\"") + name + "\" is not 16 components");
  std::array<uint8_t, 16> out{};
  for (size_t i = 0; i < 16; ++i)
    out[i] = component_svn(list[i], std::string(name) + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace

TdxTcbInfo parse_tdx_tcb_info(std::string_view tcb_info_object) {
  TdxTcbInfo info;
  const json j = kJson.parse_header(tcb_info_object, "TDX", 3, info);
  info.fmspc = kJson.hex<6>(j, "fmspc");
  info.pce_id = kJson.hex<2>(j, "pceId");
  if (j.contains("tdxModule")) {
    const json& m = j.at("tdxModule");
    TdxModuleIdentity id;
    id.mrsigner = kJson.hex<48>(m, "mrsigner");
    id.attributes = kJson.hex<8>(m, "attributes");
    id.attributes_mask = kJson.hex<8>(m, "attributesMask");
    info.tdx_module = id;
  }
  if (j.contains("tdxModuleIdentities")) {
    const json& ids = j.at("tdxModuleIdentities");
    if (!ids.is_array()) kJson.bad("\"tdxModuleIdentities\" is not an array");
    for (const json& m : ids) {
      TdxModuleVersionIdentity v;
      v.id = kJson.text(m, "id");
      v.identity.mrsigner = kJson.hex<48>(m, "mrsigner");
      v.identity.attributes = kJson.hex<8>(m, "attributes");
      v.identity.attributes_mask = kJson.hex<8>(m, "attributesMask");
      const json& module_levels = kJson.field(m, "tcbLevels");
      if (!module_levels.is_array() || module_levels.empty())
        kJson.bad(v.id + " \"tcbLevels\" is not a non-empty array");
      for (const json& level : module_levels) {
        TdxModuleVersionIdentity::Level l;
        l.isv_svn = component_svn_field(kJson.field(level, "tcb"), "isvsvn", v.id + " isvsvn");
        l.status = kJson.text(level, "tcbStatus");
        l.advisory_ids = kJson.advisory_ids(level);
        v.levels.push_back(std::move(l));
      }
      info.tdx_module_identities.push_back(std::move(v));
    }
  }
  const json& levels = kJson.field(j, "tcbLevels");
  if (!levels.is_array() || levels.empty()) kJson.bad("\"tcbLevels\" is not a non-empty array");
  for (const json& level : levels) {
    const json& tcb = kJson.field(level, "tcb");
    TdxTcbLevel l;
    l.sgx_components = components(tcb, "sgxtcbcomponents");
    l.tdx_components = components(tcb, "tdxtcbcomponents");
    const json& pcesvn = kJson.field(tcb, "pcesvn");
    if (!pcesvn.is_number_unsigned() || pcesvn.get<uint64_t>() > 0xFFFF) kJson.bad("pcesvn is not 0..65535");
    l.pce_svn = static_cast<uint16_t>(pcesvn.get<uint64_t>());
    l.status = kJson.text(level, "tcbStatus");
    if (level.contains("tcbDate") && level.at("tcbDate").is_string()) l.tcb_date = level.at("tcbDate");
    l.advisory_ids = kJson.advisory_ids(level);
    info.levels.push_back(std::move(l));
  }
  return info;
}

}  // namespace a3s::power::verify::tdx

#include "verify/tdx/tcb_info.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error("TCB Info: " + what);
}

const json& field(const json& obj, const char* name) {
  if (!obj.is_object() || !obj.contains(name)) bad(std::string("missing field \"") + name + "\"");
  return obj.at(name);
}

std::string text(const json& obj, const char* name) {
  const json& v = field(obj, name);
  if (!v.is_string()) bad(std::string("field \"") + name + "\" is not a string");
  return v.get<std::string>();
}

std::time_t date(const json& obj, const char* name) {
  auto t = parse_iso8601_utc(text(obj, name));
  if (!t) bad(std::string("field \"") + name + "\" is not an ISO 8601 UTC time");
  return *t;
}

template <size_t N>
std::array<uint8_t, N> hex(const json& obj, const char* name) {
  auto bytes = parse_hex(text(obj, name), N);
  if (!bytes) bad(std::string("field \"") + name + "\" is not " + std::to_string(N) + " hex bytes");
  std::array<uint8_t, N> out{};
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

uint8_t component_svn_field(const json& component, const char* name, const std::string& where) {
  const json& v = field(component, name);
  if (!v.is_number_unsigned()) bad(where + " svn is not an unsigned integer");
  uint64_t svn = v.get<uint64_t>();
  if (svn <= 0xFF) return static_cast<uint8_t>(svn);
  if (svn >= 0xFF80 && svn <= 0xFFFF) return static_cast<uint8_t>(svn & 0xFF);  // sign-extended byte
  bad(where + " svn " + std::to_string(svn) + " is not a one-byte SVN");
}

uint8_t component_svn(const json& component, const std::string& where) {
  return component_svn_field(component, "svn", where);
}

std::array<uint8_t, 16> components(const json& tcb, const char* name) {
  const json& list = field(tcb, name);
  if (!list.is_array() || list.size() != 16) bad(std::string("\"") + name + "\" is not 16 components");
  std::array<uint8_t, 16> out{};
  for (size_t i = 0; i < 16; ++i)
    out[i] = component_svn(list[i], std::string(name) + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace

TdxTcbInfo parse_tdx_tcb_info(std::string_view tcb_info_object) {
  json j = json::parse(tcb_info_object, nullptr, false);
  if (j.is_discarded() || !j.is_object()) bad("not a JSON object");
  TdxTcbInfo info;
  info.id = text(j, "id");
  if (info.id != "TDX") bad("id \"" + info.id + "\" is not \"TDX\"");
  const json& version = field(j, "version");
  if (!version.is_number_integer() || version.get<int>() != 3) bad("version is not 3");
  info.version = 3;
  info.issue_date = date(j, "issueDate");
  info.next_update = date(j, "nextUpdate");
  info.fmspc = hex<6>(j, "fmspc");
  info.pce_id = hex<2>(j, "pceId");
  if (j.contains("tdxModule")) {
    const json& m = j.at("tdxModule");
    TdxModuleIdentity id;
    id.mrsigner = hex<48>(m, "mrsigner");
    id.attributes = hex<8>(m, "attributes");
    id.attributes_mask = hex<8>(m, "attributesMask");
    info.tdx_module = id;
  }
  if (j.contains("tdxModuleIdentities")) {
    const json& ids = j.at("tdxModuleIdentities");
    if (!ids.is_array()) bad("\"tdxModuleIdentities\" is not an array");
    for (const json& m : ids) {
      TdxModuleVersionIdentity v;
      v.id = text(m, "id");
      v.identity.mrsigner = hex<48>(m, "mrsigner");
      v.identity.attributes = hex<8>(m, "attributes");
      v.identity.attributes_mask = hex<8>(m, "attributesMask");
      const json& module_levels = field(m, "tcbLevels");
      if (!module_levels.is_array() || module_levels.empty())
        bad(v.id + " \"tcbLevels\" is not a non-empty array");
      for (const json& level : module_levels) {
        TdxModuleVersionIdentity::Level l;
        l.isv_svn = component_svn_field(field(level, "tcb"), "isvsvn", v.id + " isvsvn");
        l.status = text(level, "tcbStatus");
        v.levels.push_back(std::move(l));
      }
      info.tdx_module_identities.push_back(std::move(v));
    }
  }
  const json& levels = field(j, "tcbLevels");
  if (!levels.is_array() || levels.empty()) bad("\"tcbLevels\" is not a non-empty array");
  for (const json& level : levels) {
    const json& tcb = field(level, "tcb");
    TdxTcbLevel l;
    l.sgx_components = components(tcb, "sgxtcbcomponents");
    l.tdx_components = components(tcb, "tdxtcbcomponents");
    const json& pcesvn = field(tcb, "pcesvn");
    if (!pcesvn.is_number_unsigned() || pcesvn.get<uint64_t>() > 0xFFFF) bad("pcesvn is not 0..65535");
    l.pce_svn = static_cast<uint16_t>(pcesvn.get<uint64_t>());
    l.status = text(level, "tcbStatus");
    if (level.contains("tcbDate") && level.at("tcbDate").is_string()) l.tcb_date = level.at("tcbDate");
    info.levels.push_back(std::move(l));
  }
  return info;
}

}  // namespace a3s::power::verify::tdx

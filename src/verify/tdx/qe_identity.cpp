#include "verify/tdx/qe_identity.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error("QE Identity: " + what);
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

uint16_t u16(const json& obj, const char* name) {
  const json& v = field(obj, name);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xFFFF) bad(std::string(name) + " is not 0..65535");
  return static_cast<uint16_t>(v.get<uint64_t>());
}

}  // namespace

QeIdentity parse_qe_identity(std::string_view enclave_identity_object) {
  json j = json::parse(enclave_identity_object, nullptr, false);
  if (j.is_discarded() || !j.is_object()) bad("not a JSON object");
  QeIdentity id;
  id.id = text(j, "id");
  if (id.id != "TD_QE") bad("id \"" + id.id + "\" is not \"TD_QE\"");
  const json& version = field(j, "version");
  if (!version.is_number_integer() || version.get<int>() != 2) bad("version is not 2");
  id.version = 2;
  id.issue_date = date(j, "issueDate");
  id.next_update = date(j, "nextUpdate");
  id.misc_select = hex<4>(j, "miscselect");
  id.misc_select_mask = hex<4>(j, "miscselectMask");
  id.attributes = hex<16>(j, "attributes");
  id.attributes_mask = hex<16>(j, "attributesMask");
  id.mrsigner = hex<32>(j, "mrsigner");
  id.isv_prod_id = u16(j, "isvprodid");
  const json& levels = field(j, "tcbLevels");
  if (!levels.is_array() || levels.empty()) bad("\"tcbLevels\" is not a non-empty array");
  for (const json& level : levels) {
    QeTcbLevel l;
    l.isv_svn = u16(field(level, "tcb"), "isvsvn");
    l.status = text(level, "tcbStatus");
    id.levels.push_back(std::move(l));
  }
  return id;
}

}  // namespace a3s::power::verify::tdx

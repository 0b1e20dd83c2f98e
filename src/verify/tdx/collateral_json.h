// Typed field access for Intel's JSON collateral (TCB Info, QE Identity). Every missing or mistyped
// field throws std::runtime_error("<what>: <field problem>"); the verifier reports it as
// `collateral_invalid`.
#pragma once

#include <algorithm>
#include <array>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/hex.h"
#include "verify/tdx/collateral_fields.h"

namespace a3s::power::verify::tdx {

class CollateralJson {
 public:
  using json = nlohmann::json;
  explicit CollateralJson(const char* what) : what_(what) {}

  [[noreturn]] void bad(const std::string& problem) const { throw std::runtime_error(what_ + (": " + problem)); }

  const json& field(const json& obj, const char* name) const {
    if (!obj.is_object() || !obj.contains(name)) bad(std::string("missing field \"") + name + "\"");
    return obj.at(name);
  }

  std::string text(const json& obj, const char* name) const {
    const json& v = field(obj, name);
    if (!v.is_string()) bad(std::string("field \"") + name + "\" is not a string");
    return v.get<std::string>();
  }

  // ISO 8601 UTC time ("2041-08-06T13:55:15Z") → Unix seconds.
  std::time_t date(const json& obj, const char* name) const {
    auto t = parse_iso8601_utc(text(obj, name));
    if (!t) bad(std::string("field \"") + name + "\" is not an ISO 8601 UTC time");
    return *t;
  }

  // Parses `object_text`, which must be a JSON object whose "id" is `id` and whose "version" is `version`,
  // and fills the fields every collateral object begins with: out.id, out.version, out.issue_date
  // ("issueDate") and out.next_update ("nextUpdate"). Returns the object for the remaining fields.
  json parse_header(std::string_view object_text, const char* id, int version, CollateralHeader& out) const {
    json j = json::parse(object_text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) bad("not a JSON object");
    out.id = text(j, "id");
    if (out.id != id) bad("id \"" + out.id + "\" is not \"" + id + "\"");
    const json& v = field(j, "version");
    if (!v.is_number_integer() || v.get<int>() != version) bad("version is not " + std::to_string(version));
    out.version = version;
    out.issue_date = date(j, "issueDate");
    out.next_update = date(j, "nextUpdate");
    return j;
  }

  // A TCB level's optional "advisoryIDs": an array of Intel security advisory IDs ("INTEL-SA-00615").
  // Absent: none. Each must be 1..64 characters of [A-Za-z0-9._-] (the IDs are printed, so nothing
  // else is let through); anything else is a format error.
  std::vector<std::string> advisory_ids(const json& level) const {
    std::vector<std::string> out;
    if (!level.is_object() || !level.contains("advisoryIDs")) return out;
    const json& list = level.at("advisoryIDs");
    if (!list.is_array()) bad("\"advisoryIDs\" is not an array");
    for (const json& v : list) {
      if (!v.is_string()) bad("an advisory ID is not a string");
      const std::string& id = v.get_ref<const std::string&>();
      const bool plain = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_' || c == '.';
      });
      if (!plain) bad("an advisory ID is not 1..64 characters of A-Z, a-z, 0-9, '.', '_', '-'");
      out.push_back(id);
    }
    return out;
  }

  // Exactly N bytes of hex.
  template <size_t N>
  std::array<uint8_t, N> hex(const json& obj, const char* name) const {
    std::array<uint8_t, N> out{};
    if (!decode_hex(text(obj, name), out))
      bad(std::string("field \"") + name + "\" is not " + std::to_string(N) + " hex bytes");
    return out;
  }

 private:
  std::string what_;
};

}  // namespace a3s::power::verify::tdx

#include "store/manifest_json.h"

#include "a3s/power/error.h"
#include "store/model_name.h"
#include "store/sha256_hasher.h"

namespace a3s::power::store {
namespace {

std::string get_string(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    throw Error(codes::kInvalidModel, std::string("manifest field '") + key + "' is missing or not a string");
  return it->get<std::string>();
}

}  // namespace

bool is_valid_digest(const std::string& digest) {
  if (digest.size() != 71 || digest.compare(0, 7, "sha256:") != 0) return false;
  const std::string hex = digest.substr(7);
  if (!is_sha256_hex(hex)) return false;
  for (char c : hex)
    if (c >= 'A' && c <= 'F') return false;
  return true;
}

nlohmann::json manifest_to_json(const Manifest& m) {
  return nlohmann::json{{"name", m.name},
                        {"digest", m.digest},
                        {"size", m.size},
                        {"format", m.format},
                        {"architecture", m.architecture},
                        {"quantization", m.quantization},
                        {"source", m.source},
                        {"created", m.created}};
}

Manifest manifest_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error(codes::kInvalidModel, "manifest is not a JSON object");
  Manifest m;
  m.name = get_string(j, "name");
  m.digest = get_string(j, "digest");
  auto size = j.find("size");
  if (size == j.end() || !size->is_number_unsigned())
    throw Error(codes::kInvalidModel, "manifest field 'size' is missing or not an unsigned integer");
  m.size = size->get<uint64_t>();
  m.format = get_string(j, "format");
  m.architecture = get_string(j, "architecture");
  m.quantization = get_string(j, "quantization");
  m.source = get_string(j, "source");
  m.created = get_string(j, "created");
  if (!model_name_problem(m.name).empty()) throw Error(codes::kInvalidModel, "manifest has an invalid name");
  if (!is_valid_digest(m.digest)) throw Error(codes::kInvalidModel, "manifest has an invalid digest");
  return m;
}

}  // namespace a3s::power::store

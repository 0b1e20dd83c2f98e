#include "attestation/attestation_response.h"

#include "base/hex.h"
#include "base/json_unique_keys.h"
#include "crypto/base64.h"

namespace a3s::power::verify::attestation {
namespace {

using nlohmann::json;

constexpr size_t kMaxMeasurementHex = 128;

// A hex digit that is not uppercase.
bool is_lower_hex_digit(char c) { return hex_digit_value(c) >= 0 && !(c >= 'A' && c <= 'F'); }

// The member `key` of `j` when it exists and has the type `is` checks; nullptr otherwise (and `error`).
const json* member(const json& j, const char* key, bool (json::*is)() const noexcept, const char* type,
                   std::string& error) {
  const auto it = j.find(key);
  if (it == j.end()) {
    error = std::string("missing member \"") + key + "\"";
    return nullptr;
  }
  if (!((*it).*is)()) {
    error = std::string("member \"") + key + "\" must be " + type;
    return nullptr;
  }
  return &*it;
}

bool one_of(const std::string& v, std::initializer_list<const char*> allowed) {
  for (const char* a : allowed)
    if (v == a) return true;
  return false;
}

bool valid_pair(const std::string& tee, const std::string& format) {
  if (tee == "sev-snp" || tee == "simulated") return format == "sev-snp-report";
  if (tee == "tdx") return format == "tdx-quote" || format == "tdx-tdreport";
  return false;
}

}  // namespace

bool is_lower_hex(std::string_view text) {
  for (char c : text)
    if (!is_lower_hex_digit(c)) return false;
  return true;
}

template <size_t N>
bool decode_lower_hex(std::string_view text, std::array<uint8_t, N>& out) {
  return text.size() == 2 * N && is_lower_hex(text) && decode_hex(text, out);
}
template bool decode_lower_hex<32>(std::string_view, std::array<uint8_t, 32>&);
template bool decode_lower_hex<64>(std::string_view, std::array<uint8_t, 64>&);

std::optional<AttestationResponse> parse_attestation_response(std::string_view body, std::string& error) {
  std::string parse_error;
  const std::optional<json> parsed = parse_json_unique_keys(body, parse_error);
  if (!parsed) {
    error = parse_error == kNotJson
                ? "the response is not JSON"
                : "the response repeats a key in a JSON object (duplicate keys are not accepted)";
    return std::nullopt;
  }
  const json& j = *parsed;
  if (!j.is_object()) {
    error = "the response is not a JSON object";
    return std::nullopt;
  }
  AttestationResponse r;
  const json* v = nullptr;
  auto string_member = [&](const char* key, std::string& out) {
    v = member(j, key, &json::is_string, "a string", error);
    if (v) out = v->get<std::string>();
    return v != nullptr;
  };
  std::string report_b64, claims_sha256;
  if (!string_member("tee_type", r.tee_type) || !string_member("policy", r.policy) ||
      !string_member("evidence_format", r.evidence_format) || !string_member("report", report_b64) ||
      !string_member("report_data", r.report_data_hex) || !string_member("measurement", r.measurement) ||
      !string_member("claims_sha256", claims_sha256) || !string_member("generated_at", r.generated_at))
    return std::nullopt;
  if (!one_of(r.tee_type, {"sev-snp", "tdx", "simulated"})) {
    error = "member \"tee_type\" must be \"sev-snp\", \"tdx\" or \"simulated\"";
    return std::nullopt;
  }
  if (!one_of(r.policy, {"strict", "development"})) {
    error = "member \"policy\" must be \"strict\" or \"development\"";
    return std::nullopt;
  }
  if (!one_of(r.evidence_format, {"sev-snp-report", "tdx-quote", "tdx-tdreport"})) {
    error = "member \"evidence_format\" must be \"sev-snp-report\", \"tdx-quote\" or \"tdx-tdreport\"";
    return std::nullopt;
  }
  if (!valid_pair(r.tee_type, r.evidence_format)) {
    error =
        "evidence_format \"" + r.evidence_format + "\" does not belong to tee_type \"" + r.tee_type + "\"";
    return std::nullopt;
  }
  auto report = crypto::base64_decode(report_b64);
  if (!report || report->empty()) {
    error = "member \"report\" must be non-empty standard padded base64";
    return std::nullopt;
  }
  r.report = std::move(*report);
  if (!decode_lower_hex(r.report_data_hex, r.report_data)) {
    error = "member \"report_data\" must be 128 lowercase hex digits";
    return std::nullopt;
  }
  if (r.measurement.empty() || r.measurement.size() % 2 != 0 || r.measurement.size() > kMaxMeasurementHex ||
      !is_lower_hex(r.measurement)) {
    error = "member \"measurement\" must be lowercase hex (at most 64 bytes)";
    return std::nullopt;
  }
  if (!decode_lower_hex(claims_sha256, r.claims_sha256)) {
    error = "member \"claims_sha256\" must be 64 lowercase hex digits";
    return std::nullopt;
  }
  if (!(v = member(j, "claims", &json::is_object, "an object", error))) return std::nullopt;
  r.claims = *v;
  if (!(v = member(j, "verifiable", &json::is_boolean, "a boolean", error))) return std::nullopt;
  r.verifiable = v->get<bool>();
  if (!(v = member(j, "config", &json::is_object, "an object", error))) return std::nullopt;
  r.config = *v;
  const auto certs = j.find("certificates");
  if (certs == j.end()) {
    error = "missing member \"certificates\"";
    return std::nullopt;
  }
  if (!certs->is_null()) {
    auto table = certs->is_string() ? crypto::base64_decode(certs->get<std::string>()) : std::nullopt;
    if (!table || table->empty()) {
      error = "member \"certificates\" must be null or non-empty standard padded base64";
      return std::nullopt;
    }
    r.certificates = std::move(*table);
  }
  return r;
}

}  // namespace a3s::power::verify::attestation

// The GET /v1/attestation response body, parsed and shape-checked (the format is documented in
// include/a3s/power/verify_attestation.h). Only the shape is checked here: nothing is trusted yet.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::verify::attestation {

struct AttestationResponse {
  std::string tee_type;         // "sev-snp" | "tdx" | "simulated"
  std::string policy;           // "strict" | "development"
  std::string evidence_format;  // "sev-snp-report" | "tdx-quote" | "tdx-tdreport"
  std::vector<uint8_t> report;  // raw evidence bytes (decoded from base64)
  std::array<uint8_t, 64> report_data{};
  std::string report_data_hex;  // as received (128 lowercase hex)
  std::string measurement;      // lowercase hex as received
  nlohmann::json claims;        // an object
  std::array<uint8_t, 32> claims_sha256{};
  std::optional<std::vector<uint8_t>> certificates;  // decoded table; nullopt when null
  bool verifiable = false;
  nlohmann::json config;  // an object: the effective non-secret configuration
  std::string generated_at;
};

// Parses `body`. std::nullopt, with `error` naming the member and what is wrong (never its value),
// when it is not one JSON object of exactly the documented members' types and encodings, or when any
// object in it (the claims included) repeats a key (RFC 8785 / I-JSON; the message never names the key);
// members not in the format are ignored. `policy` is the server's unsigned statement: only the signed
// claims.runtime.tee_policy is trusted (verify_response checks that they agree). The combination of tee_type and evidence_format must be one a server
// produces: sev-snp/sev-snp-report, tdx/tdx-quote, tdx/tdx-tdreport, simulated/sev-snp-report.
std::optional<AttestationResponse> parse_attestation_response(std::string_view body, std::string& error);

// Decodes exactly 2*N lowercase hex digits; false (out untouched) otherwise.
template <size_t N>
bool decode_lower_hex(std::string_view text, std::array<uint8_t, N>& out);
bool is_lower_hex(std::string_view text);

}  // namespace a3s::power::verify::attestation

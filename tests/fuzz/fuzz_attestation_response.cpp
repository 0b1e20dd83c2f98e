// libFuzzer target for what the verifier reads from a server: the GET /v1/attestation response body
// (attestation/attestation_response.h parse_attestation_response) and the RA-TLS evidence extension
// of a peer's DER certificate (a3s/power/verify_attestation.h ratls_certificate_response). The input
// is tried as both: as a response body it must parse or be refused with a non-empty message (never
// an exception); as a certificate the extension is decoded (or std::nullopt) and what it holds is
// parsed as a response body in turn. Crashes, sanitizer reports and exceptions are bugs.
// Seeds: tests/fuzz/seeds/attestation_response/ (response bodies and a DER RA-TLS certificate);
// dictionary: tests/fuzz/attestation_response.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "a3s/power/verify_attestation.h"
#include "attestation/attestation_response.h"

namespace {

void response(std::string_view body) {
  std::string error;
  const auto parsed = a3s::power::verify::attestation::parse_attestation_response(body, error);
  if (!parsed && error.empty()) __builtin_trap();
  if (parsed && parsed->report_data_hex.size() != 128) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  response(bytes);
  if (const auto body = a3s::power::verify::ratls_certificate_response(bytes)) response(*body);
  return 0;
}

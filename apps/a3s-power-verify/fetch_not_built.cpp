// The live fetches of a build without libcurl (A3S_WITH_CURL=OFF): run_attest refuses first
// (require_http_client), so these are not reached; they refuse all the same.
#include "a3s-power-verify/attestation_fetch.h"
#include "a3s-power-verify/ratls_fetch.h"
#include "http_client/http_client_built.h"

namespace a3s::power::verify::cli {

std::string fetch_attestation(const AttestationRequest&) {
  client::require_http_client("a3s-power-verify live verification (--url)");
  return {};
}

std::string fetch_ratls_certificate(const std::string&) {
  client::require_http_client("a3s-power-verify --ratls");
  return {};
}

RatlsAttestation fetch_ratls_attestation(const AttestationRequest&, const std::array<uint8_t, 32>&) {
  client::require_http_client("a3s-power-verify --ratls");
  return {};
}

}  // namespace a3s::power::verify::cli

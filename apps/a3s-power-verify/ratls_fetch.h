// Fetching a live attestation over RA-TLS (docs/ra-tls.md): one GET <https url>/v1/attestation?nonce=
// <64 hex>&model=<name> on a fresh TLS 1.3 connection (libcurl over OpenSSL) whose peer certificate is
// captured while that connection delivers the answer. The certificate is not checked against any
// CA or host name here: trust comes from the evidence it carries (verify_ratls_certificate) and from
// the nonce flow's claims binding the same key. No redirects, no connection reuse, no session
// resumption; the API key is sent as "Authorization: Bearer <key>" and never shown.
#pragma once

#include <string>

#include "a3s-power-verify/attestation_fetch.h"

namespace a3s::power::verify::cli {

struct RatlsAttestation {
  std::string certificate_der;  // the TLS peer's leaf certificate (DER)
  std::string body;             // the 200 answer's body
};

// Throws a3s::power::Error "invalid_argument" when the URL is not https (or not usable), "io_error"
// when no TLS connection could be made, no peer certificate was presented, or the status is not 200.
RatlsAttestation fetch_ratls_attestation(const AttestationRequest& request);

}  // namespace a3s::power::verify::cli

// Fetching a live attestation over RA-TLS (docs/ra-tls.md) in two fresh TLS 1.3 connections (libcurl
// over OpenSSL), so that the API key only ever goes to the key the caller has verified:
//   1. fetch_ratls_certificate: a TLS handshake and nothing else (no HTTP request, no API key); the peer's
//      leaf certificate is returned for the caller to check (verify_ratls_certificate).
//   2. fetch_ratls_attestation: GET <https url>/v1/attestation?nonce=<64 hex>&model=<name> on a new
//      connection pinned to that certificate's SubjectPublicKeyInfo (CURLOPT_PINNEDPUBLICKEY,
//      "sha256//<base64>"): libcurl drops a connection to any other key before sending a byte.
// The URL is https:// or vsock:// (TLS over the server's vsock listener, through http_client's
// ServerRoute: each connection is a fresh AF_VSOCK connection).
// No certificate is checked against a CA or host name: trust comes from the evidence the certificate
// carries and from the nonce flow's claims binding the same key. No redirects, no connection reuse, no
// session resumption; the API key is sent as "Authorization: Bearer <key>" and never shown.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "a3s-power-verify/attestation_fetch.h"

namespace a3s::power::verify::cli {

// The TLS peer's leaf certificate (DER) after a handshake only. Throws a3s::power::Error
// "invalid_argument" when the URL is not https or vsock (or not usable), "io_error" when no TLS connection could
// be made or no peer certificate was presented.
std::string fetch_ratls_certificate(const std::string& url);

struct RatlsAttestation {
  std::string certificate_der;  // the pinned connection's leaf certificate (DER)
  std::string body;             // the 200 answer's body
};

// The attestation over a connection whose peer key's SPKI SHA-256 is `pinned_spki_sha256`. Throws like
// fetch_ratls_certificate, and "io_error" when the peer presents another key (nothing is sent then) or
// the status is not 200.
RatlsAttestation fetch_ratls_attestation(const AttestationRequest& request,
                                         const std::array<uint8_t, 32>& pinned_spki_sha256);

}  // namespace a3s::power::verify::cli

// Fetching a live attestation: GET <url>/v1/attestation?nonce=<64 hex>&model=<percent-encoded name>
// over the client library's HTTP transport (http_client/http_client.h: no redirects, TLS verification
// always on, plain http to loopback hosts only, the API key sent as "Authorization: Bearer <key>" and
// never shown).
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::verify::cli {

inline constexpr long kConnectTimeoutMs = 10'000;
inline constexpr long kRequestTimeoutMs = 30'000;

struct AttestationRequest {
  std::string url;      // server base URL (http_client/server_url.h forms)
  std::string nonce;    // 64 lowercase hex digits
  std::string model;    // model name, UTF-8
  std::string api_key;  // "" → no Authorization header
};

// The body of the server's 200 answer. Throws a3s::power::Error:
//   "invalid_argument"  the URL is not usable (scheme, plain http to a non-loopback host, ...);
//   "io_error"          no connection or timeout, or any status but 200: one line with the HTTP status
//                       and, when the body is the API's JSON error, its code and message.
std::string fetch_attestation(const AttestationRequest& request);

}  // namespace a3s::power::verify::cli

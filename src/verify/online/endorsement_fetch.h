// GET of one endorsement (a certificate, a CRL, signed collateral) from AMD KDS or Intel PCS, through
// the endorsement cache, over the client library's HTTP transport (http_client/http_client.h: TLS
// verification always on, no redirects, plain http to loopback hosts only).
//
// This is the only place of the verifier that speaks HTTP for endorsements; the verification library
// a3s_verify itself stays free of networking and receives what was fetched as EvidenceOptions data.
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "verify/online/endorsement_cache.h"

namespace a3s::power::verify::online {

inline constexpr long kFetchConnectTimeoutMs = 10'000;
inline constexpr long kFetchRequestTimeoutMs = 30'000;

// When a fetched response stops being usable; std::nullopt: it cannot be dated, so it is not cached.
using ExpiryOf = std::function<std::optional<std::time_t>(const CachedResponse&)>;

struct FetchContext {
  const EndorsementCache* cache = nullptr;  // null: no cache
  std::time_t now = 0;                      // for cache expiry (wall clock, not the --at time)
  int* network_requests = nullptr;          // incremented per HTTP request made (optional)
  std::vector<std::string>* used_urls = nullptr;  // every URL asked for, cached or not (optional)
};

// The response of GET base + path_and_query (base: "https://kdsintf.amd.com" or a mirror / test
// server, with an optional path prefix; path_and_query starts with '/'). Served from the cache when
// it holds a fresh entry; otherwise fetched and stored: forever when `expiry` is empty (VCEKs),
// else until the time `expiry` gives (not at all when that is unset or already past).
// Throws a3s::power::Error "io_error" for an empty body and for anything but HTTP 200 (unreachable host, TLS failure,
// timeout, error status: one line naming the URL), "invalid_argument" for an unusable base URL
// (e.g. plain http to a non-loopback host).
CachedResponse fetch_endorsement(const std::string& base, const std::string& path_and_query,
                                 const FetchContext& context, const ExpiryOf& expiry);

// The full URL fetch_endorsement requests (and the cache key's input).
std::string endorsement_url(const std::string& base, const std::string& path_and_query);

}  // namespace a3s::power::verify::online

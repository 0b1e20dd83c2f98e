// On-disk cache of endorsements fetched over HTTP (AMD KDS VCEKs and CRLs, Intel PCS collateral).
//
// One entry per request URL, named by the lowercase hex SHA-256 of the full URL
// ("https://kdsintf.amd.com/vcek/v1/Milan/...?blSPL=..."):
//   <dir>/<sha256>.body  the response body, byte for byte
//   <dir>/<sha256>.json  {"url": "...", "expires": <Unix seconds> | null, "headers": [[name, value], ...]}
// `expires` null means the entry never expires (a VCEK is immutable for its chip and TCB); otherwise
// the entry is used while now < expires (collateral and CRLs: their nextUpdate) and refetched after.
// Entries are written to a temporary file and renamed, so a reader never sees half an entry. The
// cache holds public data only (certificates, CRLs, signed collateral): everything read from it is
// verified again exactly as a fresh download would be.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace a3s::power::verify::online {

struct CachedResponse {
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // lowercased names
  std::optional<std::time_t> expires;                        // unset: never
};

class EndorsementCache {
 public:
  // `dir` is created (mode 0700, with parents) on the first store. "" disables the cache.
  explicit EndorsementCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }

  // The entry for `url` when present, readable, for this very URL, and not expired at `now`.
  std::optional<CachedResponse> lookup(const std::string& url, std::time_t now) const;

  // Stores (replaces) the entry for `url`. Best effort: returns false when it could not be written
  // (the verification goes on with the fetched data).
  bool store(const std::string& url, const CachedResponse& response) const;

  // Removes the entry for `url` (nothing when there is none).
  void remove(const std::string& url) const;

  // Lowercase hex SHA-256 of `url`: the entry's file name stem.
  static std::string key(const std::string& url);

 private:
  std::string dir_;
};

// $XDG_CACHE_HOME/a3s-power-verify, else $HOME/.cache/a3s-power-verify, else "" (no cache).
std::string default_cache_dir();

}  // namespace a3s::power::verify::online

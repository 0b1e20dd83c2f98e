// API-key authentication for /v1/* (and /metrics unless public).
//
// Clients send "Authorization: Bearer <key>". The presented key is hashed with SHA-256 and compared
// with every configured hash in constant time (crypto::equal_constant_time, no early exit), so neither the key
// nor which stored key it resembles leaks through timing. Keys are never logged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace a3s::power::server {

struct Principal {
  std::string identity;  // the key's identity (api_key block label, "keyN", "adminN")
  bool admin = false;    // an admin_api_keys key: may pull and unload models
};

class Authenticator {
 public:
  // `admin_keys` are valid API keys too, with the admin scope.
  explicit Authenticator(std::vector<config::ApiKey> keys, std::vector<config::ApiKey> admin_keys = {});

  bool enabled() const { return !keys_.empty(); }
  bool admin_enabled() const { return admin_count_ > 0; }

  // The key presented in an Authorization header value, or nullopt (missing header, wrong scheme,
  // unknown key). Every configured key is compared, whichever matches.
  std::optional<Principal> authenticate(std::string_view authorization) const;

 private:
  std::vector<config::ApiKey> keys_;  // api keys, then admin keys
  size_t admin_count_ = 0;
};

}  // namespace a3s::power::server

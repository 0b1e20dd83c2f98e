// API-key authentication for /v1/* (and /metrics unless public).
//
// Clients send "Authorization: Bearer <key>". The presented key is hashed with SHA-256 and compared
// with every configured hash in constant time (CRYPTO_memcmp, no early exit), so neither the key
// nor which stored key it resembles leaks through timing. Keys are never logged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace a3s::power::server {

class Authenticator {
 public:
  explicit Authenticator(std::vector<config::ApiKey> keys) : keys_(std::move(keys)) {}

  bool enabled() const { return !keys_.empty(); }

  // The identity of the key presented in an Authorization header value, or nullopt (missing
  // header, wrong scheme, unknown key).
  std::optional<std::string> authenticate(std::string_view authorization) const;

 private:
  std::vector<config::ApiKey> keys_;
};

}  // namespace a3s::power::server

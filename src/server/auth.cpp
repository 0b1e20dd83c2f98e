#include "server/auth.h"

#include <cctype>

#include "crypto/secure_memory.h"
#include "crypto/sha256.h"

namespace a3s::power::server {

Authenticator::Authenticator(std::vector<config::ApiKey> keys, std::vector<config::ApiKey> admin_keys)
    : keys_(std::move(keys)), admin_count_(admin_keys.size()) {
  keys_.insert(keys_.end(), admin_keys.begin(), admin_keys.end());
}

std::optional<Principal> Authenticator::authenticate(std::string_view authorization) const {
  // "Bearer" is case-insensitive (RFC 7235 auth-scheme); one or more spaces before the token.
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return std::nullopt;
  }
  std::string_view rest = authorization.substr(kScheme.size());
  if (rest.empty() || rest.front() != ' ') return std::nullopt;
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
  if (rest.empty()) return std::nullopt;

  crypto::Sha256Digest digest =
      crypto::sha256({reinterpret_cast<const uint8_t*>(rest.data()), rest.size()});
  const config::ApiKey* match = nullptr;
  size_t match_index = 0;
  for (size_t i = 0; i < keys_.size(); ++i) {
    bool equal = crypto::equal_constant_time(digest, keys_[i].sha256);
    if (equal && match == nullptr) {
      match = &keys_[i];
      match_index = i;
    }
  }
  crypto::wipe(digest.data(), digest.size());
  if (!match) return std::nullopt;
  return Principal{match->identity, match_index >= keys_.size() - admin_count_};
}

}  // namespace a3s::power::server

// Where a model key comes from. A KeyProvider hands out a fresh ModelKey each time a model is
// loaded; the caller sets up its cipher and drops the key (wiped). Implementations:
//   * environment variable (default A3S_MODEL_KEY): 64 hex digits,
//   * key file: 64 hex digits and optional whitespace (as written by `a3s-power keygen`).
// A TEE-sealed source (a key derived from the platform, or released by a key broker after
// attestation) implements the same interface.
//
// Errors: Error(codes::kModelKey) naming the source (variable name or file path), never the key.
#pragma once

#include <memory>
#include <string>

#include "crypto/model_key.h"

namespace a3s::power::crypto {

class KeyProvider {
 public:
  virtual ~KeyProvider() = default;
  // Where the key comes from, for messages and logs ("key file '/etc/k'", "A3S_MODEL_KEY").
  virtual std::string describe() const = 0;
  virtual ModelKey fetch() const = 0;
};

inline constexpr const char* kDefaultModelKeyEnv = "A3S_MODEL_KEY";

// Reads the variable when fetch() is called; unset or empty → Error(codes::kModelKey).
std::shared_ptr<const KeyProvider> env_key_provider(std::string variable = kDefaultModelKeyEnv);
// Reads the file when fetch() is called (regular file, at most 4 KiB, read into locked memory).
std::shared_ptr<const KeyProvider> file_key_provider(std::string path);

}  // namespace a3s::power::crypto

// Helpers for the model integrity tests: a private copy of a reference model, bit flips, an
// independent SHA-256 (OpenSSL one-shot), signing keys and .sig files.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "unit/model/encrypted/crypto_test_util.h"
#include "a3s/power/error.h"
#include "base/hex.h"
#include "crypto/ed25519.h"
#include "model/integrity/model_signature.h"
#include "crypto/sha256.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::integrity_test {

using crypto::test::read_bytes;
using crypto::test::TempDir;
using crypto::test::write_bytes;

inline const std::string kStories = crypto::test::model_path("stories260K");

// SHA-256 with EVP_Digest, independent of crypto::Sha256.
inline std::array<uint8_t, 32> openssl_sha256(const std::vector<uint8_t>& bytes) {
  std::array<uint8_t, 32> md{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr);
  return md;
}

inline std::string hex(const std::array<uint8_t, 32>& d) { return to_hex(d); }

// Copies `src` to `dir`/name and returns the path.
inline std::string copy_model(const TempDir& dir, const std::string& name, const std::string& src = kStories) {
  const std::string dst = dir.file(name);
  std::filesystem::copy_file(src, dst, std::filesystem::copy_options::overwrite_existing);
  return dst;
}

// Flips one bit in the middle of the first tensor's data of the GGUF file at `path`.
inline void flip_tensor_bit(const std::string& path) {
  const auto file = gguf::File::open(path);
  const gguf::TensorInfo& t = file->tensors().front();
  const uint64_t at = t.file_offset + t.size_bytes / 2;
  std::vector<uint8_t> bytes = read_bytes(path);
  bytes.at(at) ^= 0x10;
  write_bytes(path, bytes);
}

struct SigningKey {
  std::array<uint8_t, 32> seed{};
  crypto::Ed25519PublicKey pub{};
  explicit SigningKey(uint8_t fill) {
    seed.fill(fill);
    pub = crypto::ed25519_public_key(seed);
  }
  // Writes `<model>.sig` (or `sig_path`) for the digest of `plaintext`.
  void sign_file(const std::string& plaintext, const std::string& sig_path) const {
    const auto sig = crypto::sign_model_digest(seed, openssl_sha256(read_bytes(plaintext)));
    std::ofstream(sig_path, std::ios::binary | std::ios::trunc) << crypto::signature_file_text(sig);
  }
};

inline std::string error_of(const std::function<void()>& f, std::string* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

}  // namespace a3s::power::integrity_test

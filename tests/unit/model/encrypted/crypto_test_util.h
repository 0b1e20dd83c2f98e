// Helpers for the encrypted-weights tests: temporary directories, files, keys, and encrypted files
// made from synthetic plaintext.
#pragma once

#include "support/gguf_builder.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/encrypted/encrypted_writer.h"
#include "crypto/model_key.h"

namespace a3s::power::crypto::test {

using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h
// Test data paths (support/test_data.h) and whole-file bytes (support/gguf_builder.h).
using ::a3s::power::testing::model_path;
using ::a3s::power::testing::read_bytes;
using ::a3s::power::testing::testdata_dir;
using ::a3s::power::testing::write_bytes;

inline std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

inline const char* kKeyHexA = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
inline const char* kKeyHexB = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

inline ModelKey key_a() {
  return ModelKey::from_hex(kKeyHexA, "test");
}
inline ModelKey key_b() {
  return ModelKey::from_hex(kKeyHexB, "test");
}

// Encrypts `in` to `out` with `key`.
inline EncryptResult encrypt_to(const std::string& in, const std::string& out, const ModelKey& key,
                                uint32_t chunk = 4096) {
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + out);
  EncryptResult r = encrypt_file(in, fd, key, chunk);
  ::close(fd);
  return r;
}

}  // namespace a3s::power::crypto::test

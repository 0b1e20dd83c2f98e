// Test helpers: copy a GGUF model with a few bytes changed (metadata value, tensor type/shape/name)
// to exercise the loader's error paths without committing model files.
#pragma once

#include "support/temp_dir.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace a3s::power::testing {

inline std::string testdata_dir() { return A3S_TESTDATA_DIR; }
inline std::string model_path(const std::string& name) { return testdata_dir() + "/models/" + name + ".gguf"; }

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Offset just past the first GGUF string (u64 length + bytes) equal to `s`.
inline size_t after_gguf_string(const std::vector<uint8_t>& b, const std::string& s) {
  std::vector<uint8_t> pat(8 + s.size());
  const uint64_t n = s.size();
  std::memcpy(pat.data(), &n, 8);
  std::memcpy(pat.data() + 8, s.data(), s.size());
  for (size_t i = 0; i + pat.size() <= b.size(); ++i)
    if (std::memcmp(b.data() + i, pat.data(), pat.size()) == 0) return i + pat.size();
  throw std::runtime_error("string not found in GGUF: " + s);
}

// Replaces the string value of metadata `key` by `value` of the same length.
inline void patch_string_value(std::vector<uint8_t>& b, const std::string& key, const std::string& value) {
  size_t p = after_gguf_string(b, key) + 4 /*type*/ + 8 /*len*/;
  std::memcpy(b.data() + p, value.data(), value.size());
}

// Tensor info fields after the name: n_dims u32, ne[n_dims] u64, type u32, offset u64.
inline void patch_tensor_type(std::vector<uint8_t>& b, const std::string& tensor, uint32_t type) {
  size_t p = after_gguf_string(b, tensor);
  uint32_t n_dims;
  std::memcpy(&n_dims, b.data() + p, 4);
  std::memcpy(b.data() + p + 4 + 8 * n_dims, &type, 4);
}

inline void patch_tensor_dim(std::vector<uint8_t>& b, const std::string& tensor, int dim, uint64_t value) {
  size_t p = after_gguf_string(b, tensor);
  std::memcpy(b.data() + p + 4 + 8 * static_cast<size_t>(dim), &value, 8);
}

// Renames a tensor (same length).
inline void patch_tensor_name(std::vector<uint8_t>& b, const std::string& from, const std::string& to) {
  size_t p = after_gguf_string(b, from) - from.size();
  std::memcpy(b.data() + p, to.data(), to.size());
}

// A fresh temporary directory removed at scope exit.
using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

}  // namespace a3s::power::testing

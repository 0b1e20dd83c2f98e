// Helpers for the tokenizer tests: shared test data paths, loading, and a minimal GGUF writer for
// synthetic vocabularies (metadata only, no tensors).
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "model/gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::test {

inline std::filesystem::path testdata() { return std::filesystem::path(A3S_TESTDATA_DIR); }

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& p) {
  auto file = gguf::File::open(p.string());
  return Tokenizer::from_gguf(*file);
}

// Writes GGUF v3 metadata (see docs/gguf.md in ggml-org/ggml).
class GgufBuilder {
 public:
  GgufBuilder& str(const std::string& key, const std::string& v) {
    begin(key, 8);
    put_str(v);
    return *this;
  }
  GgufBuilder& u32(const std::string& key, uint32_t v) {
    begin(key, 4);
    put(v);
    return *this;
  }
  GgufBuilder& boolean(const std::string& key, bool v) {
    begin(key, 7);
    put(static_cast<uint8_t>(v ? 1 : 0));
    return *this;
  }
  GgufBuilder& strs(const std::string& key, const std::vector<std::string>& v) {
    begin(key, 9);
    put(uint32_t{8});
    put(static_cast<uint64_t>(v.size()));
    for (const auto& s : v) put_str(s);
    return *this;
  }
  GgufBuilder& f32s(const std::string& key, const std::vector<float>& v) {
    begin(key, 9);
    put(uint32_t{6});
    put(static_cast<uint64_t>(v.size()));
    for (float f : v) put(f);
    return *this;
  }
  GgufBuilder& i32s(const std::string& key, const std::vector<int32_t>& v) {
    begin(key, 9);
    put(uint32_t{5});
    put(static_cast<uint64_t>(v.size()));
    for (int32_t i : v) put(i);
    return *this;
  }

  std::shared_ptr<gguf::File> build() const {
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    auto append = [&](const void* p, size_t n) {
      const auto* b = static_cast<const uint8_t*>(p);
      bytes->insert(bytes->end(), b, b + n);
    };
    append("GGUF", 4);
    const uint32_t version = 3;
    const uint64_t n_tensors = 0, n_kv = count_;
    append(&version, 4);
    append(&n_tensors, 8);
    append(&n_kv, 8);
    bytes->insert(bytes->end(), body_.begin(), body_.end());
    while (bytes->size() % 32 != 0) bytes->push_back(0);
    return gguf::File::from_memory(std::span<const uint8_t>(bytes->data(), bytes->size()), "synthetic", bytes);
  }

 private:
  template <typename T>
  void put(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    body_.insert(body_.end(), b, b + sizeof(T));
  }
  void put_str(const std::string& s) {
    put(static_cast<uint64_t>(s.size()));
    body_.insert(body_.end(), s.begin(), s.end());
  }
  void begin(const std::string& key, uint32_t type) {
    put_str(key);
    put(type);
    ++count_;
  }
  std::vector<uint8_t> body_;
  uint64_t count_ = 0;
};

}  // namespace a3s::power::test

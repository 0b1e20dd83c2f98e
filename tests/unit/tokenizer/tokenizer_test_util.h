// Helpers for the tokenizer tests: shared test data paths and loading. Synthetic vocabularies are
// built with support/gguf_builder.h (MetadataGguf).
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
#include "support/gguf_builder.h"
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

}  // namespace a3s::power::test

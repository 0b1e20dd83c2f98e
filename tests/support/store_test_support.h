// Shared helpers for store tests: a private temporary store home and the test model's bytes.
#pragma once

#include "support/temp_dir.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace a3s::power::store::testing {

inline constexpr const char* kStoriesSha256 =
    "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d";
inline constexpr uint64_t kStoriesSize = 1185376;

// True for "YYYY-MM-DDTHH:MM:SSZ" (RFC 3339, UTC, whole seconds).
inline bool looks_like_rfc3339_utc(const std::string& s) {
  static const std::string shape = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != shape.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i]) return false;
  }
  return true;
}

inline std::string stories_path() {
  return std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

// Names of the entries of `dir` (without "." and ".."); empty when it does not exist.
inline std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    out.push_back(e.path().filename().string());
  return out;
}

// Sets an environment variable for the scope of the object, restoring the old value after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace a3s::power::store::testing

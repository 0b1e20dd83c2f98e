// A temporary directory for one test: made with mkdtemp under $TMPDIR (else the system temporary
// directory) with a recognisable prefix, and removed with everything in it when the object is
// destroyed. Throws std::runtime_error when it cannot be made.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace a3s::power::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "a3s-test") {
    const char* base = std::getenv("TMPDIR");
    const std::string root = base != nullptr && *base != '\0' ? base : std::filesystem::temp_directory_path().string();
    std::string tmpl = root + "/" + prefix + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed under " + root);
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::filesystem::path fs_path() const { return path_; }
  // path()/name (not created).
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes `content` to path()/name (parent directories created) and returns that path.
  std::string write(const std::string& name, const std::string& content) const {
    const std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace a3s::power::testing

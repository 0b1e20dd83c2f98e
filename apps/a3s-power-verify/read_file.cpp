#include "a3s-power-verify/read_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void fail(const std::string& flag, const std::string& path, const std::string& why) {
  throw Error(codes::kIo, flag + " " + path + ": " + why);
}

}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path, const std::string& flag) {
  // Regular files only: a FIFO would block the open, a device would never end.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(flag, path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(flag, path, "not a regular file");
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(flag, path, std::strerror(errno));
  std::vector<uint8_t> out;
  uint8_t buf[64 * 1024];
  for (;;) {
    const size_t n = std::fread(buf, 1, sizeof buf, f.get());
    out.insert(out.end(), buf, buf + n);
    if (out.size() > kMaxInputFileSize) fail(flag, path, "larger than 16 MiB");
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) fail(flag, path, std::strerror(errno));
  return out;
}

std::string read_file_text(const std::string& path, const std::string& flag) {
  const std::vector<uint8_t> bytes = read_file_bytes(path, flag);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace a3s::power::verify::cli

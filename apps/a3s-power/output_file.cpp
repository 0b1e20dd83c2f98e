#include "a3s-power/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "base/printable.h"

namespace a3s::power::cli {
namespace {

[[noreturn]] void io_fail(const std::string& what, const std::string& path, int err) {
  throw Error(codes::kIo, what + " '" + printable_name(path) + "': " + std::strerror(err));
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error(codes::kInvalidArgument, "the output path is empty");
  // Only a regular file is ever replaced: never a device (/dev/null), a FIFO or a symbolic link.
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(codes::kInvalidArgument,
                "the output '" + printable_name(path_) + "' exists and is not a regular file; refusing to replace it");
  }
  // An unnamed file in the target's directory: if the process dies before commit(), nothing is left
  // on disk. Filesystems without O_TMPFILE get a named temporary file, removed on error.
  std::string dir = std::filesystem::path(path_).parent_path().string();
  if (dir.empty()) dir = ".";
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd_ >= 0) return;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) io_fail("cannot create the output file", path_, errno);
  std::vector<char> tmpl(path_.begin(), path_.end());
  const std::string suffix = ".tmp-XXXXXX";
  tmpl.insert(tmpl.end(), suffix.begin(), suffix.end());
  tmpl.push_back('\0');
  fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd_ < 0) io_fail("cannot create the output file", path_, errno);
  tmp_ = tmpl.data();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::write(const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) io_fail("cannot write the output file", path_, errno);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void OutputFile::commit(mode_t mode) {
  if (::fchmod(fd_, mode) != 0) io_fail("cannot set the mode of the output file", path_, errno);
  if (::fsync(fd_) != 0) io_fail("cannot write the output file", path_, errno);
  if (tmp_.empty()) {
    // Give the unnamed file a temporary name next to the target, then rename it over the target.
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    for (int i = 0; tmp_.empty(); ++i) {
      const std::string name = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(i);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        tmp_ = name;
      } else if (errno != EEXIST || i >= 100) {
        io_fail("cannot create the output file", path_, errno);
      }
    }
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_fail("cannot write the output file", path_, errno);
  }
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) io_fail("cannot create the output file", path_, errno);
  committed_ = true;
}

}  // namespace a3s::power::cli

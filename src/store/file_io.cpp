#include "store/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power::store {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void throw_io(const std::string& what, const std::string& path) {
  const int err = errno;
  throw Error(codes::kIo, what + " " + path + ": " + std::strerror(err));
}

void ensure_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0) return;
  if (errno != EEXIST) throw_io("cannot create directory", path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw_io("cannot stat", path);
  if (!S_ISDIR(st.st_mode)) throw Error(codes::kIo, "not a directory: " + path);
}

void write_all(int fd, const void* data, size_t n, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = retry_on_eintr([&] { return ::write(fd, p, n); });
    if (w < 0) throw_io("cannot write", path);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

size_t pread_some(int fd, void* data, size_t n, uint64_t offset, const std::string& path) {
  const ssize_t r = retry_on_eintr([&] { return ::pread(fd, data, n, static_cast<off_t>(offset)); });
  if (r < 0) throw_io("cannot read", path);
  return static_cast<size_t>(r);
}

void fsync_fd(int fd, const std::string& path) {
  if (::fsync(fd) != 0) throw_io("cannot fsync", path);
}

void fsync_dir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_io("cannot open directory", dir);
  fsync_fd(fd.get(), dir);
}

std::string read_small_file(const std::string& path, size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) throw_io("cannot open", path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(codes::kIo, "not a regular file: " + path);
  std::string out;
  char buf[8192];
  uint64_t off = 0;
  for (;;) {
    const size_t r = pread_some(fd.get(), buf, sizeof buf, off, path);
    if (r == 0) break;
    off += r;
    if (out.size() + r > max_bytes) throw Error(codes::kIo, "file too large: " + path);
    out.append(buf, r);
  }
  return out;
}

bool is_regular_file(const std::string& path, uint64_t* size) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (size) *size = static_cast<uint64_t>(st.st_size);
  return true;
}

void remove_file_if_exists(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw_io("cannot remove", path);
}

}  // namespace a3s::power::store

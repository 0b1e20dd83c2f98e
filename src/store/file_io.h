// POSIX file primitives the store is built on: an owning file descriptor, full writes, fsync of
// files and directories, and atomic replacement of small files (write temp + fsync + rename).
// Failures throw Error(codes::kIo) with the operation, the path and strerror(errno).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace a3s::power::store {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Throws Error(codes::kIo) naming `what` and `path` with the current errno.
[[noreturn]] void throw_io(const std::string& what, const std::string& path);

// Creates `path` (mode 0700) if missing; the parent must exist.
void ensure_dir(const std::string& path);

// Writes all n bytes (retrying short writes and EINTR).
void write_all(int fd, const void* data, size_t n, const std::string& path);

// Reads up to n bytes at `offset`; returns the count (0 at end of file).
size_t pread_some(int fd, void* data, size_t n, uint64_t offset, const std::string& path);

void fsync_fd(int fd, const std::string& path);
void fsync_dir(const std::string& dir);

// Whole contents of a small file (symlinks not followed); throws when it cannot be read or is
// larger than max_bytes.
std::string read_small_file(const std::string& path, size_t max_bytes);

// True when `path` names an existing regular file (symlinks are not followed).
bool is_regular_file(const std::string& path, uint64_t* size = nullptr);

// Removes a file, ignoring "does not exist".
void remove_file_if_exists(const std::string& path);

}  // namespace a3s::power::store

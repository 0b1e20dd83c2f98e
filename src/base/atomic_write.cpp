#include "base/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power {
namespace {

std::string default_message(AtomicWriteStep step, const std::string& file, int err) {
  std::string what;
  switch (step) {
    case AtomicWriteStep::kCreate:
      what = "cannot create temporary file in ";
      break;
    case AtomicWriteStep::kWrite:
    case AtomicWriteStep::kClose:
      what = "cannot write ";
      break;
    case AtomicWriteStep::kSetMode:
      what = "cannot set the mode of ";
      break;
    case AtomicWriteStep::kSync:
    case AtomicWriteStep::kSyncDirectory:
      what = "cannot fsync ";
      break;
    case AtomicWriteStep::kRename:
      what = "cannot rename into ";
      break;
    case AtomicWriteStep::kOpenDirectory:
      what = "cannot open directory ";
      break;
  }
  return what + file + ": " + std::strerror(err);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path, AtomicWriteErrorFn on_error)
    : path_(std::move(path)), on_error_(std::move(on_error)) {
  dir_ = std::filesystem::path(path_).parent_path().string();
  if (dir_.empty()) dir_ = ".";
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd_ >= 0) return;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(AtomicWriteStep::kCreate, dir_, errno);
  std::vector<char> tmpl(path_.begin(), path_.end());
  const std::string suffix = ".tmp-XXXXXX";
  tmpl.insert(tmpl.end(), suffix.begin(), suffix.end());
  tmpl.push_back('\0');
  fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd_ < 0) fail(AtomicWriteStep::kCreate, dir_, errno);
  tmp_ = tmpl.data();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFileWriter::fail(AtomicWriteStep step, const std::string& file, int err) const {
  if (on_error_) on_error_(step, file, err);
  throw Error(codes::kIo, default_message(step, file, err));
}

void AtomicFileWriter::write(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    const ssize_t w = retry_on_eintr([&] { return ::write(fd_, p, n); });
    if (w < 0) fail(AtomicWriteStep::kWrite, tmp_.empty() ? path_ : tmp_, errno);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFileWriter::commit(mode_t mode) {
  if (fd_ < 0) throw Error(codes::kInternal, "commit of an atomic file that was already committed");
  const std::string& file = tmp_.empty() ? path_ : tmp_;
  if (::fchmod(fd_, mode) != 0) fail(AtomicWriteStep::kSetMode, file, errno);
  if (::fsync(fd_) != 0) fail(AtomicWriteStep::kSync, file, errno);
  if (tmp_.empty()) {
    // Give the unnamed file a temporary name next to the target, then rename it over the target.
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    for (int i = 0; tmp_.empty(); ++i) {
      const std::string name = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(i);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        tmp_ = name;
      } else if (errno != EEXIST || i >= 100) {
        fail(AtomicWriteStep::kRename, path_, errno);
      }
    }
  }
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail(AtomicWriteStep::kClose, tmp_, errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) fail(AtomicWriteStep::kRename, path_, errno);
  committed_ = true;
  const int dir_fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) fail(AtomicWriteStep::kOpenDirectory, dir_, errno);
  const int synced = ::fsync(dir_fd);
  const int err = errno;
  ::close(dir_fd);
  if (synced != 0) fail(AtomicWriteStep::kSyncDirectory, dir_, err);
}

void write_file_atomically(const std::string& path, std::string_view contents, mode_t mode,
                           AtomicWriteErrorFn on_error) {
  AtomicFileWriter f(path, std::move(on_error));
  f.write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(contents.data()), contents.size()));
  f.commit(mode);
}

}  // namespace a3s::power

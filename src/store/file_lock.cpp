#include "store/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power::store {
namespace {

constexpr size_t kMaxNoteBytes = 256;

UniqueFd open_and_lock(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd) throw_io("cannot open lock file", path);
  if (retry_on_eintr([&] { return ::flock(fd.get(), LOCK_EX); }) != 0) throw_io("cannot lock", path);
  return fd;
}

std::string read_note(int fd, const std::string& path) {
  char buf[kMaxNoteBytes];
  const size_t n = pread_some(fd, buf, sizeof buf, 0, path);
  return std::string(buf, n);
}

}  // namespace

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = std::move(o.fd_);
    path_ = std::move(o.path_);
    transient_ = o.transient_;
  }
  return *this;
}

FileLock FileLock::acquire(const std::string& path) {
  FileLock l;
  l.fd_ = open_and_lock(path);
  l.path_ = path;
  return l;
}

FileLock FileLock::acquire_transient(const std::string& path, std::string* note) {
  for (;;) {
    UniqueFd fd = open_and_lock(path);
    struct stat locked {
    }, current{};
    if (::fstat(fd.get(), &locked) != 0) throw_io("cannot stat lock file", path);
    const bool live = ::stat(path.c_str(), &current) == 0 && current.st_ino == locked.st_ino &&
                      current.st_dev == locked.st_dev;
    if (live) {
      // A note in a live file was left by a holder that died before removing it: stale.
      if (::ftruncate(fd.get(), 0) != 0) throw_io("cannot truncate lock file", path);
      FileLock l;
      l.fd_ = std::move(fd);
      l.path_ = path;
      l.transient_ = true;
      return l;
    }
    // We waited for a holder that has finished and removed the file.
    std::string n = read_note(fd.get(), path);
    if (!n.empty()) {
      if (note) *note = std::move(n);
      return FileLock{};
    }
  }
}

void FileLock::write_note(std::string_view note) {
  if (!fd_) return;
  if (note.size() > kMaxNoteBytes) throw Error(codes::kInternal, "lock note too long");
  if (::ftruncate(fd_.get(), 0) != 0) throw_io("cannot truncate lock file", path_);
  if (::pwrite(fd_.get(), note.data(), note.size(), 0) != static_cast<ssize_t>(note.size()))
    throw_io("cannot write lock file", path_);
}

void FileLock::release() noexcept {
  if (!fd_) return;
  if (transient_) ::unlink(path_.c_str());
  fd_.reset();  // closing the last descriptor of the description drops the flock
  transient_ = false;
}

}  // namespace a3s::power::store

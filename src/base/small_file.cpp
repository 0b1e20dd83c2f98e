#include "base/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/syscall.h"

namespace a3s::power {
namespace {

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

SmallFileRead failed(SmallFileRead::Status status, int error = 0) {
  SmallFileRead r;
  r.status = status;
  r.error = error;
  return r;
}

}  // namespace

SmallFileRead read_small_file_into(const std::string& path, std::span<char> dst) {
  using Status = SmallFileRead::Status;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    return failed(err == ENOENT ? Status::kMissing : Status::kError, err);
  }
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return failed(Status::kNotRegular);
  if (st.st_size > static_cast<off_t>(dst.size())) return failed(Status::kTooLarge);
  size_t done = 0;
  for (;;) {
    char probe;  // once dst is full, one more byte tells a file that grew since fstat
    char* at = done < dst.size() ? dst.data() + done : &probe;
    const size_t want = done < dst.size() ? dst.size() - done : 1;
    const ssize_t n = retry_on_eintr([&] { return ::read(fd, at, want); });
    if (n < 0) return failed(Status::kError, errno);
    if (n == 0) break;
    if (done == dst.size()) return failed(Status::kTooLarge);
    done += static_cast<size_t>(n);
  }
  SmallFileRead r;
  r.size = done;
  return r;
}

}  // namespace a3s::power

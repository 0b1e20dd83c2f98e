#include "model/sources/byte_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power::weights {

FileByteReader::FileByteReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw Error(codes::kIo, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(codes::kIo, path + " is not a regular file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

FileByteReader::~FileByteReader() {
  if (fd_ >= 0) ::close(fd_);
}

void FileByteReader::read(uint64_t offset, std::span<uint8_t> dst) {
  if (offset > size_ || dst.size() > size_ - offset)
    throw Error(codes::kIo, "read past the end of " + path_ + " (file changed since it was loaded?)");
  size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n = retry_on_eintr(
        [&] { return ::pread(fd_, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done)); });
    if (n < 0) throw Error(codes::kIo, "cannot read " + path_ + ": " + std::strerror(errno));
    if (n == 0) throw Error(codes::kIo, "unexpected end of " + path_ + " (file truncated since it was loaded?)");
    done += static_cast<size_t>(n);
  }
}

}  // namespace a3s::power::weights

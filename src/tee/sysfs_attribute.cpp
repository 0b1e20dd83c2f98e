#include "tee/sysfs_attribute.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "a3s/power/error.h"
#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power::tee {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const char* op, int err) {
  throw Error(codes::kAttestationFailed,
              std::string(op) + " " + file.filename().string() + ": " + std::strerror(err));
}

}  // namespace

std::optional<std::vector<uint8_t>> read_attribute(const std::filesystem::path& file, bool optional) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (optional && (err == ENOENT || err == ENXIO || err == EOPNOTSUPP)) return std::nullopt;
    fail(file, "open", err);
  }
  std::vector<uint8_t> out;
  uint8_t buf[8192];
  for (;;) {
    const ssize_t n = retry_on_eintr([&] { return ::read(fd, buf, sizeof buf); });
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      if (optional && (err == ENXIO || err == EOPNOTSUPP)) return std::nullopt;
      fail(file, "read", err);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > kMaxAttributeSize) {
      ::close(fd);
      throw Error(codes::kAttestationFailed, "read " + file.filename().string() + ": larger than 1 MiB");
    }
    out.insert(out.end(), buf, buf + n);
  }
  ::close(fd);
  return out;
}

void write_attribute(const std::filesystem::path& file, std::span<const uint8_t> bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail(file, "open", errno);
  const ssize_t n = retry_on_eintr([&] { return ::write(fd, bytes.data(), bytes.size()); });
  if (n < 0) {
    const int err = errno;
    ::close(fd);
    fail(file, "write", err);
  }
  if (static_cast<size_t>(n) != bytes.size()) {
    ::close(fd);
    throw Error(codes::kAttestationFailed, "write " + file.filename().string() + ": short write");
  }
  if (::close(fd) != 0) fail(file, "close", errno);
}

}  // namespace a3s::power::tee

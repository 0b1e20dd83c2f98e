#include "tee/device_ioctl.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "base/syscall.h"

namespace a3s::power::tee {

DeviceIoctl system_device_ioctl() {
  return [](const std::filesystem::path& device, unsigned long request, void* arg) -> int {
    const int fd = ::open(device.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return errno;
    int rc = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
      rc = retry_on_eintr([&] { return ::ioctl(fd, request, arg); }) == 0 ? 0 : errno;
      if (rc != EAGAIN) break;  // the SNP driver returns EAGAIN while the host is busy
    }
    ::close(fd);
    return rc;
  };
}

}  // namespace a3s::power::tee

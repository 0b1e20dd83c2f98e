// The injectable device call behind /dev/sev-guest and /dev/tdx_guest: open `device` (read-write),
// ioctl(request, arg), close. Tests pass a fake that interprets `arg` like the kernel driver would.
#pragma once

#include <filesystem>
#include <functional>

namespace a3s::power::tee {

// Returns 0 on success or the errno value of the failing open(2) / ioctl(2) (positive).
using DeviceIoctl = std::function<int(const std::filesystem::path& device, unsigned long request, void* arg)>;

// The real device call (open O_RDWR | O_CLOEXEC, ioctl with EINTR / EAGAIN retries, close).
DeviceIoctl system_device_ioctl();

}  // namespace a3s::power::tee

// Sealed-memfd plaintext image ("file" decrypt mode); see plaintext_image.h.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "model/sources/plaintext_image.h"

namespace a3s::power::weights {
namespace {

[[noreturn]] void fail(const char* what) {
  const int err = errno;
  throw Error(codes::kInternal,
              std::string("decrypted model memory file: ") + what + ": " + std::strerror(err));
}

class MemfdImage final : public PlaintextImage {
 public:
  MemfdImage(int fd, const uint8_t* data, size_t size) : fd_(fd), data_(data), size_(size) {}
  ~MemfdImage() override {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    ::close(fd_);
  }
  std::span<const uint8_t> bytes() const override { return {data_, size_}; }
  bool locked() const override { return false; }
  int memfd() const override { return fd_; }

 private:
  int fd_;
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

std::shared_ptr<PlaintextImage> make_sealed_memfd_image(size_t size, const std::string& name,
                                                        const ImageFill& fill) {
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) fail("memfd_create");
  struct Guard {
    int fd;
    ~Guard() {
      if (fd >= 0) ::close(fd);
    }
  } guard{fd};
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) fail("ftruncate");

  if (size > 0) {
    void* rw = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rw == MAP_FAILED) fail("mmap");
    (void)::madvise(rw, size, MADV_DONTDUMP);
    try {
      fill(std::span(static_cast<uint8_t*>(rw), size));
    } catch (...) {
      crypto::wipe(rw, size);
      ::munmap(rw, size);
      throw;
    }
    // F_SEAL_WRITE needs every writable shared mapping gone.
    ::munmap(rw, size);
  }
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    fail("sealing");

  const uint8_t* data = nullptr;
  if (size > 0) {
    void* ro = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (ro == MAP_FAILED) fail("mmap (read-only)");
    (void)::madvise(ro, size, MADV_DONTDUMP);
    data = static_cast<const uint8_t*>(ro);
  }
  auto image = std::make_shared<MemfdImage>(fd, data, size);
  guard.fd = -1;  // owned by the image
  return image;
}

}  // namespace a3s::power::weights

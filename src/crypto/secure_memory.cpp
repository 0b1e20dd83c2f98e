#include "crypto/secure_memory.h"

#include <openssl/crypto.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "a3s/power/error.h"
#include "base/log.h"

namespace a3s::power::crypto {
namespace {

std::atomic<WipeObserver> g_observer{nullptr};

size_t page_size() {
  static const size_t p = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return p;
}

std::string memlock_limit_text() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_MEMLOCK, &rl) != 0) return "unknown";
  if (rl.rlim_cur == RLIM_INFINITY) return "unlimited";
  return std::to_string(static_cast<unsigned long long>(rl.rlim_cur)) + " bytes";
}

}  // namespace

bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

void wipe(void* p, size_t n) {
  if (p == nullptr || n == 0) return;
  OPENSSL_cleanse(p, n);
  if (WipeObserver obs = g_observer.load(std::memory_order_acquire)) obs(p, n);
}

void set_wipe_observer_for_testing(WipeObserver observer) {
  g_observer.store(observer, std::memory_order_release);
}

void* map_huge_aligned(size_t mapped) {
  // One extra huge page is mapped and the ends trimmed, so that the mapping starts on a 2 MiB boundary
  // (the kernel backs only aligned 2 MiB ranges with huge pages).
  constexpr size_t kHuge = LockedBuffer::kHugePageBytes;
  if (mapped == 0 || mapped > SIZE_MAX - kHuge) return nullptr;
  void* m = ::mmap(nullptr, mapped + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(m);
  const uintptr_t aligned = (base + kHuge - 1) / kHuge * kHuge;
  if (aligned > base) (void)::munmap(m, aligned - base);
  const uintptr_t tail = base + mapped + kHuge - (aligned + mapped);
  if (tail > 0) (void)::munmap(reinterpret_cast<void*>(aligned + mapped), tail);
  (void)::madvise(reinterpret_cast<void*>(aligned), mapped, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

LockedBuffer::LockedBuffer(size_t size, const char* what, Pages pages) : size_(size) {
  if (size == 0) return;
  const size_t ps = pages == Pages::kHuge ? kHugePageBytes : page_size();
  if (size > SIZE_MAX / 2 - 2 * ps) throw Error(codes::kInternal, std::string(what) + ": size too large");
  mapped_ = (size + ps - 1) / ps * ps;
  void* m = pages == Pages::kHuge ? map_huge_aligned(mapped_)
                                  : ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || m == nullptr) {
    const int err = errno;
    mapped_ = 0;
    size_ = 0;
    throw Error(codes::kInternal, std::string("cannot allocate ") + std::to_string(size) + " bytes for the " +
                                      what + ": " + std::strerror(err));
  }
  data_ = static_cast<uint8_t*>(m);
  // Never in a core dump; never inherited by a child process.
  (void)::madvise(m, mapped_, MADV_DONTDUMP);
  (void)::madvise(m, mapped_, MADV_DONTFORK);
  if (::mlock(m, mapped_) == 0) {
    locked_ = true;
  } else {
    const int err = errno;
    log_debug(std::string("could not lock the ") + what + " in memory (" + std::to_string(mapped_) +
              " bytes, RLIMIT_MEMLOCK " + memlock_limit_text() + ": " + std::strerror(err) +
              "); it may be swapped out");
  }
}

LockedBuffer::~LockedBuffer() {
  release();
}

LockedBuffer::LockedBuffer(LockedBuffer&& o) noexcept
    : data_(o.data_), size_(o.size_), mapped_(o.mapped_), locked_(o.locked_), read_only_(o.read_only_) {
  o.data_ = nullptr;
  o.size_ = o.mapped_ = 0;
  o.locked_ = o.read_only_ = false;
}

LockedBuffer& LockedBuffer::operator=(LockedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    size_ = o.size_;
    mapped_ = o.mapped_;
    locked_ = o.locked_;
    read_only_ = o.read_only_;
    o.data_ = nullptr;
    o.size_ = o.mapped_ = 0;
    o.locked_ = o.read_only_ = false;
  }
  return *this;
}

void LockedBuffer::protect_read_only() {
  if (data_ == nullptr || read_only_) return;
  if (::mprotect(data_, mapped_, PROT_READ) != 0) {
    const int err = errno;
    throw Error(codes::kInternal,
                std::string("cannot make a locked buffer read-only: ") + std::strerror(err));
  }
  read_only_ = true;
}

void LockedBuffer::wipe_now() {
  if (data_ == nullptr) return;
  if (read_only_) {
    // Must succeed: the bytes are secret. mprotect on our own anonymous mapping only fails on a
    // kernel resource shortage; abort rather than leave plaintext behind.
    if (::mprotect(data_, mapped_, PROT_READ | PROT_WRITE) != 0) std::abort();
    read_only_ = false;
  }
  wipe(data_, mapped_);
}

void LockedBuffer::release() noexcept {
  if (data_ == nullptr) return;
  wipe_now();
  if (locked_) ::munlock(data_, mapped_);
  ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
  locked_ = false;
}

}  // namespace a3s::power::crypto

// Memory for secrets and plaintext weights.
//
// `wipe` overwrites bytes with zeros in a way the compiler may not elide (OPENSSL_cleanse).
// `equal_constant_time` compares two byte strings without an early exit (CRYPTO_memcmp).
// `LockedBuffer` is page-aligned anonymous memory that is
//   * locked in RAM with mlock(2) when RLIMIT_MEMLOCK allows (best effort: when it does not, the
//     buffer still works, `locked()` is false and a debug log line says so),
//   * excluded from core dumps (madvise MADV_DONTDUMP),
//   * wiped before it is unmapped (destructor, move-assignment).
// Sizes are bytes. Allocation failure throws Error(codes::kInternal) (mmap) — never silently
// returns less memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace a3s::power::crypto {

// Zeroes [p, p+n) (not elided). Calls the test observer, if one is set, after the bytes are zero
// and while they are still mapped.
void wipe(void* p, size_t n);

// True when a and b have the same size and bytes. The time taken depends only on the sizes, never on
// where the bytes differ (CRYPTO_memcmp), for digests and secrets.
bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

// Zeroes a vector's whole allocation (size and spare capacity) with wipe(); size and capacity stay.
template <typename T>
void wipe_allocation(std::vector<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (v.capacity() != 0) wipe(v.data(), v.capacity() * sizeof(T));
}

// Test hook: observe every wipe (pointer and length). Not thread-safe against concurrent wipes;
// set it before and clear it (nullptr) after the code under test.
using WipeObserver = void (*)(const void* p, size_t n);
void set_wipe_observer_for_testing(WipeObserver observer);

// An anonymous private read-write mapping of `mapped` bytes (a multiple of the page size) that starts
// on a 2 MiB boundary and is advised for transparent huge pages (madvise MADV_HUGEPAGE): the kernel
// may back each whole 2 MiB range inside it with one huge page (fewer TLB misses; best effort, as the
// THP policy and fragmentation allow). Unmapped with munmap(p, mapped). nullptr when it cannot be
// mapped.
void* map_huge_aligned(size_t mapped);

class LockedBuffer {
 public:
  LockedBuffer() = default;
  // Page size the buffer asks for. kHuge: the mapping is aligned to and rounded up to 2 MiB and
  // advised for transparent huge pages (madvise MADV_HUGEPAGE) before it is locked, for large
  // buffers read sequentially and often (packed weights: fewer TLB misses); the kernel may still back
  // it with base pages (best effort; the THP policy "never" or fragmentation).
  enum class Pages { kBase, kHuge };
  static constexpr size_t kHugePageBytes = size_t{2} << 20;

  // `size` bytes (rounded up to whole pages internally), zero-filled. `what` names the buffer in the
  // debug message when the lock fails (e.g. "model key", "decrypted model").
  LockedBuffer(size_t size, const char* what, Pages pages = Pages::kBase);
  ~LockedBuffer();
  LockedBuffer(LockedBuffer&& o) noexcept;
  LockedBuffer& operator=(LockedBuffer&& o) noexcept;
  LockedBuffer(const LockedBuffer&) = delete;
  LockedBuffer& operator=(const LockedBuffer&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<uint8_t> span() { return {data_, size_}; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  bool locked() const { return locked_; }

  // Makes the pages read-only (after they are filled) or writable again. Wiping re-enables writes.
  void protect_read_only();

  // Zeroes the bytes now (the buffer stays allocated).
  void wipe_now();

 private:
  void release() noexcept;

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;
  bool locked_ = false;
  bool read_only_ = false;
};

}  // namespace a3s::power::crypto

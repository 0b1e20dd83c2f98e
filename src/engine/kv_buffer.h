// Storage of one KV-cache tensor (fp16 values): anonymous page-aligned memory that is
//   * zero when allocated,
//   * from 2 MiB on, aligned to 2 MiB and advised for transparent huge pages (crypto::map_huge_aligned),
//   * excluded from core dumps (madvise MADV_DONTDUMP; best effort, always on),
//   * wiped with crypto::wipe (not elided) before it is unmapped — on destruction, move-assignment
//     and therefore on every growth of the cache — and on wipe().
// It is not mlocked here: in TEE mode the whole process is (lock_process_memory, base/process_hardening.h),
// so no per-buffer limit applies. Allocation failure
// throws std::bad_alloc, like the std::vector it replaces.
#pragma once

#include <cstddef>
#include <cstdint>

namespace a3s::power::engine {

class KvBuffer {
 public:
  KvBuffer() = default;
  explicit KvBuffer(size_t n_values);
  ~KvBuffer();
  KvBuffer(KvBuffer&& o) noexcept;
  KvBuffer& operator=(KvBuffer&& o) noexcept;
  KvBuffer(const KvBuffer&) = delete;
  KvBuffer& operator=(const KvBuffer&) = delete;

  uint16_t* data() { return data_; }
  const uint16_t* data() const { return data_; }
  size_t size() const { return size_; }  // values

  // Zeroes every value now (the buffer stays allocated).
  void wipe() noexcept;

 private:
  void release() noexcept;

  uint16_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // bytes mapped (whole pages)
};

}  // namespace a3s::power::engine

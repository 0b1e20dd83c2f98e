#include "engine/kv_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>
#include <utility>

#include "crypto/secure_memory.h"

namespace a3s::power::engine {

KvBuffer::KvBuffer(size_t n_values) {
  if (n_values == 0) return;
  if (n_values > static_cast<size_t>(-1) / 2 / sizeof(uint16_t)) throw std::bad_alloc();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t bytes = n_values * sizeof(uint16_t);
  const size_t mapped = (bytes + page - 1) / page * page;
  // From 2 MiB on, huge pages where the kernel gives them: a decode step writes a cache line per V
  // dimension and reads a slice of every K row, scattered over the block; with 4 KiB pages the TLB
  // misses made RoPE and the K/V store of a llama-7b layer 3.6x slower (docs/benchmarks.md).
  void* m = mapped >= crypto::LockedBuffer::kHugePageBytes
                ? crypto::map_huge_aligned(mapped)
                : ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || m == nullptr) throw std::bad_alloc();
  (void)::madvise(m, mapped, MADV_DONTDUMP);  // best effort: the cache stays usable without it
  data_ = static_cast<uint16_t*>(m);
  size_ = n_values;
  mapped_ = mapped;
}

KvBuffer::~KvBuffer() { release(); }

KvBuffer::KvBuffer(KvBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), mapped_(std::exchange(o.mapped_, 0)) {}

KvBuffer& KvBuffer::operator=(KvBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, 0);
  }
  return *this;
}

void KvBuffer::wipe() noexcept {
  if (data_) crypto::wipe(data_, size_ * sizeof(uint16_t));
}

void KvBuffer::release() noexcept {
  if (!data_) return;
  wipe();
  ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = 0;
}

}  // namespace a3s::power::engine

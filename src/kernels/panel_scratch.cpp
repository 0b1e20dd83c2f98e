#include "kernels/panel_scratch.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace a3s::power::kernels {

PanelScratch::~PanelScratch() { release(); }

uint8_t* PanelScratch::get(size_t bytes) {
  if (bytes <= mapped_) return data_;
  release();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (bytes > static_cast<size_t>(-1) - page) throw std::bad_alloc();
  const size_t mapped = (bytes + page - 1) / page * page;
  void* m = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  (void)::madvise(m, mapped, MADV_DONTDUMP);  // best effort, as for the other plaintext buffers
  (void)::mlock(m, mapped);                    // best effort: RLIMIT_MEMLOCK may not allow it
  data_ = static_cast<uint8_t*>(m);
  mapped_ = mapped;
  return data_;
}

void PanelScratch::wipe(size_t bytes) {
  if (data_ != nullptr) ::explicit_bzero(data_, bytes < mapped_ ? bytes : mapped_);
}

void PanelScratch::release() {
  if (data_ == nullptr) return;
  ::explicit_bzero(data_, mapped_);
  (void)::munlock(data_, mapped_);
  ::munmap(data_, mapped_);
  data_ = nullptr;
  mapped_ = 0;
}

PanelScratch& thread_panel_scratch() {
  thread_local PanelScratch s;
  return s;
}

PanelScratch& thread_aux_scratch() {
  thread_local PanelScratch s;
  return s;
}

}  // namespace a3s::power::kernels

// Per-thread scratch of matmul's panel path (kernel_table.h, PanelKernels): the packed weight panels
// of the row range a thread works on, and the activation side data of one call.
//
// The memory is anonymous pages excluded from core dumps (MADV_DONTDUMP) and locked in RAM where
// RLIMIT_MEMLOCK allows (best effort, like the decrypted weights they copy); it is zeroed before it is
// unmapped (when it grows and when the thread ends). Activation side data derives from the request, so
// matmul zeroes it after every call (`wipe`). Sizes are bytes; allocation failure throws std::bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace a3s::power::kernels {

class PanelScratch {
 public:
  PanelScratch() = default;
  ~PanelScratch();
  PanelScratch(const PanelScratch&) = delete;
  PanelScratch& operator=(const PanelScratch&) = delete;

  // At least `bytes` bytes (64-byte aligned); the contents are unspecified.
  uint8_t* get(size_t bytes);
  // Zeroes the first `bytes` bytes (not elided by the compiler).
  void wipe(size_t bytes);

 private:
  void release();
  uint8_t* data_ = nullptr;
  size_t mapped_ = 0;
};

// This thread's scratch for weight panels and for activation side data.
PanelScratch& thread_panel_scratch();
PanelScratch& thread_aux_scratch();

}  // namespace a3s::power::kernels

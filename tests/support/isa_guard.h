// IsaGuard: switches the kernels to one instruction set for a test (force_isa) and restores
// the one that was active when it was constructed.
#pragma once

#include "kernels/kernels.h"

// In namespace kernels (not a3s::power::testing, which would hide ::testing from the kernel tests).
namespace a3s::power::kernels {

class IsaGuard {
 public:
  IsaGuard() : saved_(active_isa()) {}
  explicit IsaGuard(Isa isa) : saved_(active_isa()) { force_isa(isa); }
  ~IsaGuard() { force_isa(saved_); }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;

 private:
  Isa saved_;
};

}  // namespace a3s::power::kernels

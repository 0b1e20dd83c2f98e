// exp_row: the scalar reference (every ISA's version computes the same bits) and the public entry.
#include "kernels/exp_approx.h"
#include "kernels/kernels.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

void exp_row_scalar(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_approx::exp(x[i]);
}

}  // namespace

void install_scalar_exp(KernelTable& t) {
  t.exp_row = exp_row_scalar;
}

void exp_row(const float* x, float* y, int64_t n) {
  if (n > 0) active_table().exp_row(x, y, n);
}

}  // namespace a3s::power::kernels

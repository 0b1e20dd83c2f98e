// dot_f16_lanes16: the scalar reference (every ISA's version computes the same bits) and the public
// entry.
#include "kernels/dot_f16_lanes16.h"

#include <cmath>

#include "kernels/kernels.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

float dot_f16_lanes16_scalar(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  using namespace lanes16;
  auto at = [n](const uint16_t* r, int64_t i) { return i < n ? fp16_to_fp32(r[i]) : 0.0f; };
  const int64_t n_vec = n_padded / kStep * kStep;
  double sum = 0.0;
  if (n_vec > 0) {
    float acc[4][kLanes] = {};
    for (int64_t i = 0; i < n_vec; i += kStep) {
      for (int j = 0; j < 4; ++j) {
        for (int l = 0; l < kLanes; ++l) {
          const int64_t k = i + j * kLanes + l;
          acc[j][l] = std::fma(at(x, k), at(y, k), acc[j][l]);
        }
      }
    }
    float v[kLanes];
    for (int l = 0; l < kLanes; ++l) v[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    sum = hsum16(v);
  }
  for (int64_t i = n_vec; i < n; ++i) sum += static_cast<double>(at(x, i) * at(y, i));
  return static_cast<float>(sum);
}

void dot_f16_lanes16_rows_scalar(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* y,
                                 int64_t n, int64_t n_padded, float* out) {
  for (int64_t r = 0; r < n_rows; ++r) out[r] = dot_f16_lanes16_scalar(x + r * x_stride, y, n, n_padded);
}

}  // namespace

void install_scalar_dot_f16_lanes16(KernelTable& t) {
  t.dot_f16_lanes16 = dot_f16_lanes16_scalar;
  t.dot_f16_lanes16_rows = dot_f16_lanes16_rows_scalar;
}

float dot_f16_lanes16(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  return active_table().dot_f16_lanes16(x, y, n, n_padded < n ? n : n_padded);
}

void dot_f16_lanes16_rows(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* y, int64_t n,
                          int64_t n_padded, float* out) {
  if (n_rows <= 0) return;
  active_table().dot_f16_lanes16_rows(x, x_stride, n_rows, y, n, n_padded < n ? n : n_padded, out);
}

}  // namespace a3s::power::kernels

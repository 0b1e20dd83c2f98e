// AVX2 + FMA + F16C dot_f16_lanes16: each 16-lane accumulator of the reference is two 8-lane
// registers; the per-lane operations and the reduction order are the scalar reference's.
#include "kernels/avx2_common.h"
#include "kernels/dot_f16_lanes16.h"

namespace a3s::power::kernels {
namespace {

float dot_f16_lanes16_avx2(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  using namespace lanes16;
  const int64_t n_vec = n_padded / kStep * kStep;
  const int64_t n_full = n / kStep * kStep;  // steps with no padding inside
  double sum = 0.0;
  if (n_vec > 0) {
    __m256 lo[4], hi[4];
    for (int j = 0; j < 4; ++j) lo[j] = hi[j] = _mm256_setzero_ps();
    auto load = [](const uint16_t* p) {
      return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    };
    int64_t i = 0;
    for (; i < n_full; i += kStep) {
      for (int j = 0; j < 4; ++j) {
        const int64_t k = i + j * kLanes;
        lo[j] = _mm256_fmadd_ps(load(x + k), load(y + k), lo[j]);
        hi[j] = _mm256_fmadd_ps(load(x + k + 8), load(y + k + 8), hi[j]);
      }
    }
    for (; i < n_vec; i += kStep) {  // steps that hold the end of the row and the zero padding
      alignas(32) uint16_t bx[kStep] = {}, by[kStep] = {};
      const int64_t m = n - i < kStep ? (n > i ? n - i : 0) : kStep;  // real elements in this step
      std::memcpy(bx, x + i, static_cast<size_t>(m) * sizeof(uint16_t));
      std::memcpy(by, y + i, static_cast<size_t>(m) * sizeof(uint16_t));
      for (int j = 0; j < 4; ++j) {
        lo[j] = _mm256_fmadd_ps(load(bx + j * kLanes), load(by + j * kLanes), lo[j]);
        hi[j] = _mm256_fmadd_ps(load(bx + j * kLanes + 8), load(by + j * kLanes + 8), hi[j]);
      }
    }
    // hsum16 in registers: its first step adds lanes i and i + 8 (hi + lo), then hsum's order.
    const __m256 v_lo = _mm256_add_ps(_mm256_add_ps(lo[0], lo[2]), _mm256_add_ps(lo[1], lo[3]));
    const __m256 v_hi = _mm256_add_ps(_mm256_add_ps(hi[0], hi[2]), _mm256_add_ps(hi[1], hi[3]));
    sum = hsum(_mm256_add_ps(v_hi, v_lo));
  }
  for (int64_t i = n_vec; i < n; ++i) sum += static_cast<double>(h2f(x[i]) * h2f(y[i]));
  return static_cast<float>(sum);
}

}  // namespace

void install_avx2_dot_f16_lanes16(KernelTable& t) {
  t.dot_f16_lanes16 = dot_f16_lanes16_avx2;
}

}  // namespace a3s::power::kernels

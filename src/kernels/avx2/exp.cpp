// AVX2 + FMA exp_row: eight lanes of exp_approx::exp, the same operations in the same order, so the
// results equal the scalar reference bit for bit.
#include "kernels/avx2/common.h"
#include "kernels/exp_approx.h"

namespace a3s::power::kernels {
namespace {

inline __m256 pow2(__m256i k) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}

inline __m256 exp8(__m256 x) {
  namespace e = exp_approx;
  const __m256 shift = _mm256_set1_ps(e::kShift);
  const __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(e::kLog2e), shift);
  const __m256 k = _mm256_sub_ps(z, shift);
  const __m256 b =
      _mm256_fnmadd_ps(k, _mm256_set1_ps(e::kLn2Lo), _mm256_fnmadd_ps(k, _mm256_set1_ps(e::kLn2Hi), x));
  const __m256 u = _mm256_mul_ps(b, b);
  const __m256 p =
      _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(e::kC5), b, _mm256_set1_ps(e::kC4)), u,
                                      _mm256_fmadd_ps(_mm256_set1_ps(e::kC3), b, _mm256_set1_ps(e::kC2))),
                      u, _mm256_fmadd_ps(_mm256_set1_ps(e::kC1), b, _mm256_set1_ps(1.0f)));
  // Lanes with |k| > 192 (or NaN) are replaced below; clamp so their shifts stay harmless.
  const __m256 kc = _mm256_min_ps(_mm256_max_ps(k, _mm256_set1_ps(-e::kMaxK)), _mm256_set1_ps(e::kMaxK));
  const __m256i ki = _mm256_cvttps_epi32(kc);
  const __m256i k1 = _mm256_srai_epi32(ki, 1);
  const __m256 r = _mm256_mul_ps(_mm256_mul_ps(p, pow2(k1)), pow2(_mm256_sub_epi32(ki, k1)));
  const __m256 absk = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), k);
  const __m256 out_of_range = _mm256_cmp_ps(absk, _mm256_set1_ps(e::kMaxK), _CMP_GT_OQ);
  const __m256 limit = _mm256_and_ps(_mm256_cmp_ps(k, _mm256_setzero_ps(), _CMP_GT_OQ),
                                     _mm256_set1_ps(std::numeric_limits<float>::infinity()));
  const __m256 nan = _mm256_cmp_ps(k, k, _CMP_UNORD_Q);
  return _mm256_blendv_ps(_mm256_blendv_ps(r, limit, out_of_range), k, nan);
}

void exp_row_avx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, exp8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = exp_approx::exp(x[i]);
}

}  // namespace

void install_avx2_exp(KernelTable& t) {
  t.exp_row = exp_row_avx2;
}

}  // namespace a3s::power::kernels

// AVX2 + FMA + F16C dot products of the types without a matmul tile (Q2_K, Q3_K); the other types'
// vec_dot is their tile kernel with one token (avx2/tile.cpp). Integer sums inside a block are exact;
// Q2_K scales and accumulates super-blocks in an 8-lane float vector with FMA, Q3_K adds one scalar
// FMA with each super-block's integer total. The scalar reference (ref/vec_dot.cpp, lanes8.h)
// performs the same float operations in the same order: both paths return the same bits. Every fused
// multiply-add is written out (the kernels are compiled with -ffp-contract=off), so the arithmetic
// does not depend on the compiler.
#include "kernels/avx2/common.h"

namespace a3s::power::kernels {
namespace {

// ---- K-quants --------------------------------------------------------------------------------------

void dot_q2_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ2_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  __m256 acc = _mm256_setzero_ps();
  float mins = 0.0f;
  const __m256i m3 = _mm256_set1_epi8(3);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const __m128i sc_bytes = load128(a[i].scales);
    const __m256i mn = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(sc_bytes, 4), _mm_set1_epi8(0x0F)));
    mins = std::fma(b[i].d * h2f(a[i].dmin), static_cast<float>(scaled_bsums(mn, b[i].bsums)), mins);
    __m256i isum = _mm256_setzero_si256();
    const int8_t* q8 = b[i].qs;
    for (int half = 0; half < 2; ++half) {
      const __m256i q2 = load256(a[i].qs + 32 * half);
      const uint8_t* sc = a[i].scales + 8 * half;
      for (int plane = 0; plane < 4; ++plane, q8 += 32) {
        const __m256i q = _mm256_and_si256(_mm256_srli_epi16(q2, 2 * plane), m3);
        const __m256i p = _mm256_maddubs_epi16(q, load256(q8));
        isum = _mm256_add_epi32(
            isum, _mm256_madd_epi16(p, scale_pair(sc[2 * plane] & 0xF, sc[2 * plane + 1] & 0xF)));
      }
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(b[i].d * h2f(a[i].d)), _mm256_cvtepi32_ps(isum), acc);
  }
  *out = hsum(acc) - mins;
}

void dot_q3_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ3_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  const __m256i m3 = _mm256_set1_epi8(3);
  const __m256i one = _mm256_set1_epi8(1);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const __m256i sc_vec = q3k_scales16(a[i].scales);
    // Both lanes of sc_half[h] hold scales 8h..8h+7.
    const __m256i sc_half[2] = {_mm256_permute2x128_si256(sc_vec, sc_vec, 0x00),
                                _mm256_permute2x128_si256(sc_vec, sc_vec, 0x11)};
    // Quants are stored as u = low2 + 4·hbit ∈ [0, 7] and mean u - 4: subtract 4·Σ sc·bsums.
    __m256i isum = _mm256_set1_epi32(0);
    const __m256i hm = load256(a[i].hmask);
    const int8_t* q8 = b[i].qs;
    for (int half = 0; half < 2; ++half) {
      const __m256i q3 = load256(a[i].qs + 32 * half);
      for (int plane = 0; plane < 4; ++plane, q8 += 32) {
        const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q3, 2 * plane), m3);
        const __m256i hb = _mm256_and_si256(_mm256_srli_epi16(hm, 4 * half + plane), one);
        const __m256i u = _mm256_or_si256(lo, _mm256_slli_epi16(hb, 2));
        const __m256i p = _mm256_maddubs_epi16(u, load256(q8));
        isum = _mm256_add_epi32(isum, _mm256_madd_epi16(p, pair16(sc_half[half], plane)));
      }
    }
    const int total = hsum_i32(isum) - 4 * scaled_bsums(sc_vec, b[i].bsums);
    sum = std::fma(h2f(a[i].d) * b[i].d, static_cast<float>(total), sum);
  }
  *out = sum;
}

}  // namespace

void install_avx2_vec_dot(KernelTable& t) {
  t.vec_dot[idx(TensorType::Q2_K)] = dot_q2_k;
  t.vec_dot[idx(TensorType::Q3_K)] = dot_q3_k;
}

void install_avx2(KernelTable& t) {
  install_avx2_vec_dot(t);
  install_avx2_convert(t);
  install_avx2_tile(t);
  install_avx2_bf16(t);
  install_avx2_exp(t);
  install_avx2_dot_f16_lanes16(t);
}

}  // namespace a3s::power::kernels

// AVX2 + FMA + F16C dot products for every weight type. Integer sums inside a block are exact; blocks
// are scaled and accumulated in 8-lane float vectors with FMA (Q3_K and Q6_K: one scalar FMA with each
// super-block's integer total; Q4_0: one scalar FMA with each block's integer total times d_w·d_x,
// the order of llama.cpp's repacked Q4_0 kernels on AVX2 CPUs). The scalar reference
// (vec_dot_scalar.cpp, lanes8.h) performs the same float operations in the same order: both paths
// return the same bits. Every fused multiply-add is written out (the kernels are compiled with
// -ffp-contract=off), so the arithmetic does not depend on the compiler.
#include "kernels/avx2_common.h"

namespace a3s::power::kernels {
namespace {

// ---- float rows ----------------------------------------------------------------------------------

inline __m256 load_f32(const void* p, int64_t i) {
  return _mm256_loadu_ps(static_cast<const float*>(p) + i);
}
inline __m256 load_f16(const void* p, int64_t i) {
  return _mm256_cvtph_ps(load128(static_cast<const uint16_t*>(p) + i));
}
inline float scalar_f32(const void* p, int64_t i) {
  return static_cast<const float*>(p)[i];
}
inline float scalar_f16(const void* p, int64_t i) {
  return h2f(static_cast<const uint16_t*>(p)[i]);
}

// Two 8-lane FMA accumulators over 16 elements per step, the remaining whole 8-element step into the
// first; the tail (< 8 elements) in double. The order of the F32 / F16 matmul tiles (tile_avx2.cpp),
// so vec_dot and matmul agree. (BF16: bf16_pairs_avx2.cpp.)
template <__m256 (*Load)(const void*, int64_t), float (*Scalar)(const void*, int64_t)>
void dot_float_row(int64_t n, float* out, const void* a, const void* b) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm256_fmadd_ps(Load(a, i), Load(b, i), acc0);
    acc1 = _mm256_fmadd_ps(Load(a, i + 8), Load(b, i + 8), acc1);
  }
  for (; i + 8 <= n; i += 8) acc0 = _mm256_fmadd_ps(Load(a, i), Load(b, i), acc0);
  double sum = hsum(_mm256_add_ps(acc0, acc1));
  for (; i < n; ++i) sum += static_cast<double>(Scalar(a, i) * Scalar(b, i));
  *out = static_cast<float>(sum);
}

// ---- 32-element blocks ---------------------------------------------------------------------------

// One float accumulator, one FMA per block: llama.cpp repacks Q4_0 weights (8 rows interleaved) on
// AVX2 CPUs, and its kernels add each block's integer sum this way.
void dot_q4_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float acc = 0.0f;
  const __m256i eight = _mm256_set1_epi8(8);
  for (int64_t i = 0; i < n / kQK; ++i) {
    const float d = h2f(a[i].d) * h2f(b[i].d);
    const __m256i qa = _mm256_sub_epi8(unpack_nibbles(a[i].qs), eight);
    const __m256i s = dot_i8_i8(qa, load256(b[i].qs));
    acc = std::fma(static_cast<float>(hsum_i32(s)), d, acc);
  }
  *out = acc;
}

void dot_q4_1(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_1*>(w);
  const auto* b = static_cast<const BlockQ8_1*>(x);
  __m256 acc = _mm256_setzero_ps();
  float mins = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256 d = _mm256_set1_ps(h2f(a[i].d) * h2f(b[i].d));
    mins = std::fma(h2f(a[i].m), h2f(b[i].s), mins);
    const __m256i s = dot_u8_i8(unpack_nibbles(a[i].qs), load256(b[i].qs));
    acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(s), acc);
  }
  *out = hsum(acc) + mins;
}

void dot_q5_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  __m256 acc = _mm256_setzero_ps();
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0xF0));
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256 d = _mm256_set1_ps(h2f(a[i].d) * h2f(b[i].d));
    uint32_t qh;
    std::memcpy(&qh, a[i].qh, 4);
    // value - 16 as int8: nibble when the fifth bit is set, nibble | 0xF0 (= nibble - 16) when clear.
    const __m256i q = _mm256_or_si256(unpack_nibbles(a[i].qs), _mm256_andnot_si256(spread_bits(qh), high));
    const __m256i s = dot_i8_i8(q, load256(b[i].qs));
    acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(s), acc);
  }
  *out = hsum(acc);
}

void dot_q5_1(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_1*>(w);
  const auto* b = static_cast<const BlockQ8_1*>(x);
  __m256 acc = _mm256_setzero_ps();
  float mins = 0.0f;
  const __m256i bit4 = _mm256_set1_epi8(0x10);
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256 d = _mm256_set1_ps(h2f(a[i].d) * h2f(b[i].d));
    mins = std::fma(h2f(a[i].m), h2f(b[i].s), mins);
    uint32_t qh;
    std::memcpy(&qh, a[i].qh, 4);
    const __m256i q = _mm256_or_si256(unpack_nibbles(a[i].qs), _mm256_and_si256(spread_bits(qh), bit4));
    const __m256i s = dot_u8_i8(q, load256(b[i].qs));
    acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(s), acc);
  }
  *out = hsum(acc) + mins;
}

void dot_q8_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ8_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256 d = _mm256_set1_ps(h2f(a[i].d) * h2f(b[i].d));
    const __m256i s = dot_i8_i8(load256(a[i].qs), load256(b[i].qs));
    acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(s), acc);
  }
  *out = hsum(acc);
}

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
    alignas(32) int16_t sc[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sc), sc_vec);
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
        const int g = 8 * half + 2 * plane;
        isum = _mm256_add_epi32(isum, _mm256_madd_epi16(p, scale_pair(sc[g], sc[g + 1])));
      }
    }
    const int total = hsum_i32(isum) - 4 * scaled_bsums(sc_vec, b[i].bsums);
    sum = std::fma(h2f(a[i].d) * b[i].d, static_cast<float>(total), sum);
  }
  *out = sum;
}

void dot_q4_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  __m256 acc = _mm256_setzero_ps();
  float mins = 0.0f;
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    uint8_t sc[8], mn[8];
    k4_unpack(a[i].scales, sc, mn);
    mins = std::fma(b[i].d * h2f(a[i].dmin), static_cast<float>(k4_min_dot(mn, b[i].bsums)), mins);
    __m256i isum = _mm256_setzero_si256();
    const int8_t* q8 = b[i].qs;
    for (int c = 0; c < 4; ++c, q8 += 64) {
      const __m256i q4 = load256(a[i].qs + 32 * c);
      const __m256i lo = _mm256_and_si256(q4, m4);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
      const __m256i plo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(q8)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c])));
      const __m256i phi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(q8 + 32)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c + 1])));
      isum = _mm256_add_epi32(isum, _mm256_add_epi32(plo, phi));
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(b[i].d * h2f(a[i].d)), _mm256_cvtepi32_ps(isum), acc);
  }
  *out = hsum(acc) - mins;
}

void dot_q5_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  __m256 acc = _mm256_setzero_ps();
  float mins = 0.0f;
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i one = _mm256_set1_epi8(1);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    uint8_t sc[8], mn[8];
    k4_unpack(a[i].scales, sc, mn);
    mins = std::fma(b[i].d * h2f(a[i].dmin), static_cast<float>(k4_min_dot(mn, b[i].bsums)), mins);
    __m256i isum = _mm256_setzero_si256();
    const __m256i qh = load256(a[i].qh);
    const int8_t* q8 = b[i].qs;
    for (int c = 0; c < 4; ++c, q8 += 64) {
      const __m256i q5 = load256(a[i].qs + 32 * c);
      const __m256i hlo = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4);
      const __m256i hhi = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4);
      const __m256i lo = _mm256_or_si256(_mm256_and_si256(q5, m4), hlo);
      const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q5, 4), m4), hhi);
      const __m256i plo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(q8)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c])));
      const __m256i phi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(q8 + 32)),
                                            _mm256_set1_epi16(static_cast<int16_t>(sc[2 * c + 1])));
      isum = _mm256_add_epi32(isum, _mm256_add_epi32(plo, phi));
    }
    acc = _mm256_fmadd_ps(_mm256_set1_ps(b[i].d * h2f(a[i].d)), _mm256_cvtepi32_ps(isum), acc);
  }
  *out = hsum(acc) - mins;
}

void dot_q6_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ6_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i m3 = _mm256_set1_epi8(3);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const __m256i sc_vec = _mm256_cvtepi8_epi16(load128(a[i].scales));
    alignas(32) int16_t sc16[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sc16), sc_vec);
    // Quants are stored unsigned (q + 32): subtract 32·Σ sc·bsums.
    __m256i isum = _mm256_setzero_si256();
    const int8_t* q8 = b[i].qs;
    for (int half = 0; half < 2; ++half, q8 += 128) {
      const __m256i l0 = load256(a[i].ql + 64 * half);
      const __m256i l1 = load256(a[i].ql + 64 * half + 32);
      const __m256i h = load256(a[i].qh + 32 * half);
      const __m256i q1 =
          _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m3), 4));
      const __m256i q2 = _mm256_or_si256(_mm256_and_si256(l1, m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m3), 4));
      const __m256i q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m3), 4));
      const __m256i q4 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                         _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m3), 4));
      const int16_t* sc = sc16 + 8 * half;
      const __m256i p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(q1, load256(q8)), scale_pair(sc[0], sc[1]));
      const __m256i p2 =
          _mm256_madd_epi16(_mm256_maddubs_epi16(q2, load256(q8 + 32)), scale_pair(sc[2], sc[3]));
      const __m256i p3 =
          _mm256_madd_epi16(_mm256_maddubs_epi16(q3, load256(q8 + 64)), scale_pair(sc[4], sc[5]));
      const __m256i p4 =
          _mm256_madd_epi16(_mm256_maddubs_epi16(q4, load256(q8 + 96)), scale_pair(sc[6], sc[7]));
      isum = _mm256_add_epi32(isum, _mm256_add_epi32(_mm256_add_epi32(p1, p2), _mm256_add_epi32(p3, p4)));
    }
    const int total = hsum_i32(isum) - 32 * scaled_bsums(sc_vec, b[i].bsums);
    sum = std::fma(h2f(a[i].d) * b[i].d, static_cast<float>(total), sum);
  }
  *out = sum;
}

}  // namespace

void install_avx2_vec_dot(KernelTable& t) {
  t.vec_dot[idx(TensorType::F32)] = dot_float_row<load_f32, scalar_f32>;
  t.vec_dot[idx(TensorType::F16)] = dot_float_row<load_f16, scalar_f16>;
  t.vec_dot[idx(TensorType::Q4_0)] = dot_q4_0;
  t.vec_dot[idx(TensorType::Q4_1)] = dot_q4_1;
  t.vec_dot[idx(TensorType::Q5_0)] = dot_q5_0;
  t.vec_dot[idx(TensorType::Q5_1)] = dot_q5_1;
  t.vec_dot[idx(TensorType::Q8_0)] = dot_q8_0;
  t.vec_dot[idx(TensorType::Q2_K)] = dot_q2_k;
  t.vec_dot[idx(TensorType::Q3_K)] = dot_q3_k;
  t.vec_dot[idx(TensorType::Q4_K)] = dot_q4_k;
  t.vec_dot[idx(TensorType::Q5_K)] = dot_q5_k;
  t.vec_dot[idx(TensorType::Q6_K)] = dot_q6_k;
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

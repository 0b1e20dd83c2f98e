// AVX2 tile kernels for matmul: one weight row against up to four tokens at a time, so each weight
// block is loaded and unpacked once per four activation rows (prefill); Q4_0 takes eight rows per
// pass as well (rows8_q4_0). IQ4_NL / IQ4_XS look their values up with one byte shuffle. The same kernels with one token are the AVX2 vec_dot of these types, so
// a matmul result equals vec_dot bit for bit; both equal the scalar reference (ref/vec_dot.cpp,
// lanes8.h), which performs the same float operations in the same order. The float types use two
// 8-lane accumulators per token and sum the tail in double.
#include "kernels/avx2/common.h"

namespace a3s::power::kernels {
namespace {

constexpr int kTokens = 4;  // tokens per weight pass

// Activation rows of NT tokens.
template <typename Block, int NT>
struct Rows {
  const Block* r[NT];
  Rows(const void* x, size_t stride) {
    for (int t = 0; t < NT; ++t)
      r[t] = reinterpret_cast<const Block*>(static_cast<const uint8_t*>(x) + t * stride);
  }
};

// ---- 32-element blocks against Q8_0 / Q8_1 ---------------------------------------------------------

template <int NT>
void multi_q8_0(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ8_0*>(w);
  const Rows<BlockQ8_0, NT> b(x, xs);
  __m256 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    prefetch_span(reinterpret_cast<const char*>(a + i) + kPrefetchAhead, sizeof a[i]);
    const __m256i qa = load256(a[i].qs);
    const __m256i aa = _mm256_sign_epi8(qa, qa);
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      const __m256i s = dot_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs), qa));
      acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(da * h2f(b.r[t][i].d)), _mm256_cvtepi32_ps(s), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = hsum(acc[t]);
}

template <int NT>
void multi_q4_0(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ4_0*>(w);
  const Rows<BlockQ8_0, NT> b(x, xs);
  const __m256i eight = _mm256_set1_epi8(8);
  float acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256i qa = _mm256_sub_epi8(unpack_nibbles(a[i].qs), eight);
    const __m256i aa = _mm256_sign_epi8(qa, qa);
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      const __m256i s = dot_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs), qa));
      acc[t] = std::fma(static_cast<float>(hsum_i32(s)), da * h2f(b.r[t][i].d), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = acc[t];
}

// IQ4_NL: the nibbles index kIq4Values (one byte shuffle per 16); then as Q4_0, the block's integer
// total with one scalar FMA (ref/iq4.cpp).
inline __m256i iq4_lut() {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4Values));
  return _mm256_set_m128i(v, v);
}

template <int NT>
void multi_iq4_nl(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockIQ4NL*>(w);
  const Rows<BlockQ8_0, NT> b(x, xs);
  const __m256i lut = iq4_lut();
  float acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const __m256i qa = _mm256_shuffle_epi8(lut, unpack_nibbles(a[i].qs));
    const __m256i aa = _mm256_sign_epi8(qa, qa);
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      const __m256i s = dot_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs), qa));
      acc[t] = std::fma(static_cast<float>(hsum_i32(s)), da * h2f(b.r[t][i].d), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = acc[t];
}

// IQ4_XS against Q8_K: per super-block the eight sub-blocks' int32 lanes times their signed scales,
// summed; one FMA of the lanes with d_w · d_x; hsum at the end (ref/iq4.cpp).
template <int NT>
void multi_iq4_xs(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockIQ4XS*>(w);
  const Rows<BlockQ8_K, NT> b(x, xs);
  const __m256i lut = iq4_lut();
  __m256 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQKK; ++i) {
    __m256i lanes[NT];
    for (int t = 0; t < NT; ++t) lanes[t] = _mm256_setzero_si256();
    for (int s = 0; s < kQKK / kQK; ++s) {
      const int lo = (a[i].scales_l[s / 2] >> (4 * (s % 2))) & 0xF;
      const int hi = (a[i].scales_h >> (2 * s)) & 0x3;
      const __m256i ls = _mm256_set1_epi32((lo | (hi << 4)) - 32);
      const __m256i qa = _mm256_shuffle_epi8(lut, unpack_nibbles(a[i].qs + s * kQK / 2));
      const __m256i aa = _mm256_sign_epi8(qa, qa);
      for (int t = 0; t < NT; ++t) {
        const __m256i p = dot_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs + s * kQK), qa));
        lanes[t] = _mm256_add_epi32(lanes[t], _mm256_mullo_epi32(p, ls));
      }
    }
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t)
      acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(da * b.r[t][i].d), _mm256_cvtepi32_ps(lanes[t]), acc[t]);
  }
  for (int t = 0; t < NT; ++t) out[t] = hsum(acc[t]);
}

template <int NT>
void multi_q5_0(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ5_0*>(w);
  const Rows<BlockQ8_0, NT> b(x, xs);
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0xF0));
  __m256 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    uint32_t qh;
    std::memcpy(&qh, a[i].qh, 4);
    const __m256i qa = _mm256_or_si256(unpack_nibbles(a[i].qs), _mm256_andnot_si256(spread_bits(qh), high));
    const __m256i aa = _mm256_sign_epi8(qa, qa);
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      const __m256i s = dot_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs), qa));
      acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(da * h2f(b.r[t][i].d)), _mm256_cvtepi32_ps(s), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = hsum(acc[t]);
}

// Q4_1 / Q5_1: unsigned quants times Q8_1, plus m · s per block.
template <int NT, bool kFive>
void multi_q_1(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const Rows<BlockQ8_1, NT> b(x, xs);
  const __m256i bit4 = _mm256_set1_epi8(0x10);
  __m256 acc[NT];
  float mins[NT];
  for (int t = 0; t < NT; ++t) {
    acc[t] = _mm256_setzero_ps();
    mins[t] = 0.0f;
  }
  for (int64_t i = 0; i < n / kQK; ++i) {
    __m256i qa;
    float da, ma;
    if constexpr (kFive) {
      const auto& blk = static_cast<const BlockQ5_1*>(w)[i];
      uint32_t qh;
      std::memcpy(&qh, blk.qh, 4);
      qa = _mm256_or_si256(unpack_nibbles(blk.qs), _mm256_and_si256(spread_bits(qh), bit4));
      da = h2f(blk.d);
      ma = h2f(blk.m);
    } else {
      const auto& blk = static_cast<const BlockQ4_1*>(w)[i];
      qa = unpack_nibbles(blk.qs);
      da = h2f(blk.d);
      ma = h2f(blk.m);
    }
    for (int t = 0; t < NT; ++t) {
      mins[t] = std::fma(ma, h2f(b.r[t][i].s), mins[t]);
      const __m256i s = dot_u8_i8(qa, load256(b.r[t][i].qs));
      acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(da * h2f(b.r[t][i].d)), _mm256_cvtepi32_ps(s), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = hsum(acc[t]) + mins[t];
}

// ---- K-quants against Q8_K -------------------------------------------------------------------------

// Q4_K / Q5_K (kFive): 8 sub-blocks of 32 with 6-bit scales and mins.
template <int NT, bool kFive>
void multi_k4(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const Rows<BlockQ8_K, NT> b(x, xs);
  float sum[NT], mins[NT];
  for (int t = 0; t < NT; ++t) sum[t] = mins[t] = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const uint8_t* scales;
    const uint8_t* qs;
    uint16_t d16, dmin16;
    __m256i qh = _mm256_setzero_si256();
    if constexpr (kFive) {
      const auto& blk = static_cast<const BlockQ5_K*>(w)[i];
      prefetch_span(reinterpret_cast<const char*>(&blk) + kPrefetchAhead, sizeof blk);
      scales = blk.scales;
      qs = blk.qs;
      d16 = blk.d;
      dmin16 = blk.dmin;
      qh = load256(blk.qh);
    } else {
      const auto& blk = static_cast<const BlockQ4_K*>(w)[i];
      prefetch_span(reinterpret_cast<const char*>(&blk) + kPrefetchAhead, sizeof blk);
      scales = blk.scales;
      qs = blk.qs;
      d16 = blk.d;
      dmin16 = blk.dmin;
    }
    __m256i mn;
    const __m256i sc = k4_scales(scales, &mn);
    const float da = h2f(d16), dmin = h2f(dmin16);
    for (int t = 0; t < NT; ++t)
      mins[t] = std::fma(b.r[t][i].d * dmin, static_cast<float>(k4_min_dot(mn, b.r[t][i].bsums)), mins[t]);
    __m256i isum[NT];
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
    for (int c = 0; c < 4; ++c) {
      __m256i lo, hi;
      k4_pair<kFive>(qs, qh, c, &lo, &hi);
      const __m256i slo = bcast16(sc, 2 * c);
      const __m256i shi = bcast16(sc, 2 * c + 1);
      for (int t = 0; t < NT; ++t) {
        const int8_t* q8 = b.r[t][i].qs + 64 * c;
        const __m256i plo = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, load256(q8)), slo);
        const __m256i phi = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, load256(q8 + 32)), shi);
        isum[t] = _mm256_add_epi32(isum[t], _mm256_add_epi32(plo, phi));
      }
    }
    for (int t = 0; t < NT; ++t)
      sum[t] = std::fma(b.r[t][i].d * da, static_cast<float>(hsum_i32(isum[t])), sum[t]);
  }
  for (int t = 0; t < NT; ++t) out[t] = sum[t] - mins[t];
}

template <int NT>
void multi_q6_k(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ6_K*>(w);
  const Rows<BlockQ8_K, NT> b(x, xs);
  float sum[NT];
  for (int t = 0; t < NT; ++t) sum[t] = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    prefetch_span(reinterpret_cast<const char*>(a + i) + kPrefetchAhead, sizeof a[i]);
    const __m256i sc_vec = _mm256_cvtepi8_epi16(load128(a[i].scales));
    // Both lanes of sc_half[h] hold scales 8h..8h+7.
    const __m256i sc_half[2] = {_mm256_permute2x128_si256(sc_vec, sc_vec, 0x00),
                                _mm256_permute2x128_si256(sc_vec, sc_vec, 0x11)};
    __m256i isum[NT];
    for (int t = 0; t < NT; ++t) isum[t] = _mm256_setzero_si256();
    for (int half = 0; half < 2; ++half) {
      __m256i q[4];
      q6k_half(a[i].ql, a[i].qh, half, q);
      for (int p = 0; p < 4; ++p) {
        const __m256i s = pair16(sc_half[half], p);
        for (int t = 0; t < NT; ++t) {
          const int8_t* q8 = b.r[t][i].qs + 128 * half + 32 * p;
          isum[t] = _mm256_add_epi32(isum[t], _mm256_madd_epi16(_mm256_maddubs_epi16(q[p], load256(q8)), s));
        }
      }
    }
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      // Σ q·x − 32·Σ scale·bsum, reduced once (the integers are exact in any order).
      const __m256i bias = _mm256_slli_epi32(_mm256_madd_epi16(sc_vec, load256(b.r[t][i].bsums)), 5);
      const int total = hsum_i32(_mm256_sub_epi32(isum[t], bias));
      sum[t] = std::fma(da * b.r[t][i].d, static_cast<float>(total), sum[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = sum[t];
}

// ---- float rows --------------------------------------------------------------------------------------

inline __m256 load_w(const float* p) {
  return _mm256_loadu_ps(p);
}
inline __m256 load_w(const uint16_t* p) {
  return _mm256_cvtph_ps(load128(p));
}

// F32 / F16 weights (elements of type E) against activations of the same type; tail in double.
template <int NT, typename E>
void multi_float(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const E*>(w);
  const E* b[NT];
  for (int t = 0; t < NT; ++t) b[t] = reinterpret_cast<const E*>(static_cast<const uint8_t*>(x) + t * xs);
  __m256 acc0[NT], acc1[NT];
  for (int t = 0; t < NT; ++t) acc0[t] = acc1[t] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 w0 = load_w(a + i), w1 = load_w(a + i + 8);
    for (int t = 0; t < NT; ++t) {
      acc0[t] = _mm256_fmadd_ps(w0, load_w(b[t] + i), acc0[t]);
      acc1[t] = _mm256_fmadd_ps(w1, load_w(b[t] + i + 8), acc1[t]);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 w0 = load_w(a + i);
    for (int t = 0; t < NT; ++t) acc0[t] = _mm256_fmadd_ps(w0, load_w(b[t] + i), acc0[t]);
  }
  for (int t = 0; t < NT; ++t) {
    double s = hsum(_mm256_add_ps(acc0[t], acc1[t]));
    for (int64_t j = i; j < n; ++j) {
      if constexpr (sizeof(E) == 4) {
        s += static_cast<double>(a[j] * b[t][j]);
      } else {
        s += static_cast<double>(h2f(a[j]) * h2f(b[t][j]));
      }
    }
    out[t] = static_cast<float>(s);
  }
}

// ---- tile driver -------------------------------------------------------------------------------------

template <template <int> class K>
void tile(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride, int n_x,
          float* Y, size_t y_stride) {
  float out[kTokens];
  for (int r = 0; r < n_w; ++r) {
    const uint8_t* w = static_cast<const uint8_t*>(W) + static_cast<size_t>(r) * w_stride;
    int t = 0;
    for (; t + kTokens <= n_x; t += kTokens) {
      K<kTokens>::run(n, w, static_cast<const uint8_t*>(X) + static_cast<size_t>(t) * x_stride, x_stride,
                      out);
      for (int k = 0; k < kTokens; ++k)
        Y[static_cast<size_t>(t + k) * y_stride + static_cast<size_t>(r)] = out[k];
    }
    const uint8_t* xt = static_cast<const uint8_t*>(X) + static_cast<size_t>(t) * x_stride;
    switch (n_x - t) {
      case 3:
        K<3>::run(n, w, xt, x_stride, out);
        break;
      case 2:
        K<2>::run(n, w, xt, x_stride, out);
        break;
      case 1:
        K<1>::run(n, w, xt, x_stride, out);
        break;
      default:
        break;
    }
    for (int k = 0; k < n_x - t; ++k)
      Y[static_cast<size_t>(t + k) * y_stride + static_cast<size_t>(r)] = out[k];
  }
}

template <int NT>
struct KQ8_0 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q8_0<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ4_0 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q4_0<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KIQ4_NL {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_iq4_nl<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KIQ4_XS {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_iq4_xs<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ5_0 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q5_0<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ4_1 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q_1<NT, false>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ5_1 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q_1<NT, true>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ4_K {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_k4<NT, false>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ5_K {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_k4<NT, true>(n, w, x, s, o);
  }
};
template <int NT>
struct KQ6_K {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_q6_k<NT>(n, w, x, s, o);
  }
};
template <int NT>
struct KF32 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_float<NT, float>(n, w, x, s, o);
  }
};
template <int NT>
struct KF16 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    multi_float<NT, uint16_t>(n, w, x, s, o);
  }
};

// Q4_0: eight weight rows against NT tokens per pass. Per (row, token) the arithmetic is that of
// multi_q4_0 (each block's integer sum times d_w·d_x, added by one FMA in block order); the eight
// rows' chains sit in the lanes of one vector per token, so the FMA latency is paid once per eight
// rows and the eight block sums are reduced together (as llama.cpp's 8-row repacked Q4_0 kernels do).
// Each weight block is unpacked once per NT tokens. The integer sums are formed as
// Σ q·x − 8·Σ x with the unsigned nibbles q (exact, the same integers as Σ (q − 8)·x): the
// activation-only term is shared by the eight rows.
template <int NT>
void rows8_q4_0(int64_t n, const uint8_t* W, size_t w_stride, const uint8_t* X, size_t x_stride, float* Y,
                size_t y_stride) {
  const BlockQ4_0* a[8];
  for (int r = 0; r < 8; ++r) a[r] = reinterpret_cast<const BlockQ4_0*>(W + static_cast<size_t>(r) * w_stride);
  const Rows<BlockQ8_0, NT> b(X, x_stride);
  const __m256i bias8 = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i bias_sum = _mm256_set1_epi32(kQK * 128);
  const __m256i ones16 = _mm256_set1_epi16(1);
  __m256 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    // Reads the next eight rows while these are computed (they follow in memory).
    prefetch_span(W + 8 * w_stride + i * 8 * sizeof(BlockQ4_0), 8 * sizeof(BlockQ4_0));
    __m256i qa[8];
    for (int r = 0; r < 8; ++r) qa[r] = unpack_nibbles(a[r][i].qs);
    const __m128i dw16 = _mm_set_epi16(static_cast<int16_t>(a[7][i].d), static_cast<int16_t>(a[6][i].d),
                                       static_cast<int16_t>(a[5][i].d), static_cast<int16_t>(a[4][i].d),
                                       static_cast<int16_t>(a[3][i].d), static_cast<int16_t>(a[2][i].d),
                                       static_cast<int16_t>(a[1][i].d), static_cast<int16_t>(a[0][i].d));
    const __m256 dw = _mm256_cvtph_ps(dw16);
    for (int t = 0; t < NT; ++t) {
      const __m256i bq = load256(b.r[t][i].qs);
      // int16 pair products, |·| ≤ 2·15·127; a sum of eight of them still fits in int16.
      __m256i m[8];
      for (int r = 0; r < 8; ++r) m[r] = _mm256_maddubs_epi16(qa[r], bq);
      // Per 128-bit half: four int16 partial sums of each row, then one int32 per row and half.
      const __m256i q0123 = _mm256_hadd_epi16(_mm256_hadd_epi16(m[0], m[1]), _mm256_hadd_epi16(m[2], m[3]));
      const __m256i q4567 = _mm256_hadd_epi16(_mm256_hadd_epi16(m[4], m[5]), _mm256_hadd_epi16(m[6], m[7]));
      const __m256i h0123 = _mm256_madd_epi16(q0123, ones16);
      const __m256i h4567 = _mm256_madd_epi16(q4567, ones16);
      // Lane r = Σ q·x of row r (exact).
      const __m256i qx = _mm256_add_epi32(_mm256_permute2x128_si256(h0123, h4567, 0x20),
                                          _mm256_permute2x128_si256(h0123, h4567, 0x31));
      // Σ (x + 128) in every lane (byte sums by sad, no multiplies), then 8·Σ x = 8·(that − 32·128).
      const __m256i sad = _mm256_sad_epu8(_mm256_xor_si256(bq, bias8), _mm256_setzero_si256());
      __m256i xs = _mm256_add_epi64(sad, _mm256_shuffle_epi32(sad, _MM_SHUFFLE(1, 0, 3, 2)));
      xs = _mm256_add_epi64(xs, _mm256_permute2x128_si256(xs, xs, 0x01));
      xs = _mm256_shuffle_epi32(xs, _MM_SHUFFLE(0, 0, 0, 0));
      const __m256i sums = _mm256_sub_epi32(qx, _mm256_slli_epi32(_mm256_sub_epi32(xs, bias_sum), 3));
      const __m256 d = _mm256_mul_ps(dw, _mm256_set1_ps(h2f(b.r[t][i].d)));
      acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), d, acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) _mm256_storeu_ps(Y + static_cast<size_t>(t) * y_stride, acc[t]);
}

// vec_dot(n, out, w, x) as the tile kernel with one token.
template <template <int> class K>
void dot_one(int64_t n, float* out, const void* w, const void* x) {
  K<1>::run(n, w, x, 0, out);
}

}  // namespace

void tile_q4_0_avx2(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride, int n_x,
               float* Y, size_t y_stride) {
  const auto* w = static_cast<const uint8_t*>(W);
  const auto* x = static_cast<const uint8_t*>(X);
  int r = 0;
  for (; r + 8 <= n_w; r += 8) {
    const uint8_t* wr = w + static_cast<size_t>(r) * w_stride;
    int t = 0;
    for (; t + kTokens <= n_x; t += kTokens)
      rows8_q4_0<kTokens>(n, wr, w_stride, x + static_cast<size_t>(t) * x_stride, x_stride,
                          Y + static_cast<size_t>(t) * y_stride + r, y_stride);
    for (; t < n_x; ++t)
      rows8_q4_0<1>(n, wr, w_stride, x + static_cast<size_t>(t) * x_stride, x_stride,
                    Y + static_cast<size_t>(t) * y_stride + r, y_stride);
  }
  if (r < n_w) tile<KQ4_0>(n, w + static_cast<size_t>(r) * w_stride, w_stride, n_w - r, X, x_stride, n_x, Y + r, y_stride);
}

void install_avx2_tile(KernelTable& t) {
  t.vec_dot[idx(TensorType::F32)] = dot_one<KF32>;
  t.vec_dot[idx(TensorType::F16)] = dot_one<KF16>;
  t.vec_dot[idx(TensorType::Q8_0)] = dot_one<KQ8_0>;
  t.vec_dot[idx(TensorType::Q4_0)] = dot_one<KQ4_0>;
  t.vec_dot[idx(TensorType::Q5_0)] = dot_one<KQ5_0>;
  t.vec_dot[idx(TensorType::Q4_1)] = dot_one<KQ4_1>;
  t.vec_dot[idx(TensorType::Q5_1)] = dot_one<KQ5_1>;
  t.vec_dot[idx(TensorType::Q4_K)] = dot_one<KQ4_K>;
  t.vec_dot[idx(TensorType::Q5_K)] = dot_one<KQ5_K>;
  t.vec_dot[idx(TensorType::Q6_K)] = dot_one<KQ6_K>;
  t.vec_dot[idx(TensorType::IQ4_NL)] = dot_one<KIQ4_NL>;
  t.vec_dot[idx(TensorType::IQ4_XS)] = dot_one<KIQ4_XS>;
  t.tile[idx(TensorType::F32)] = tile<KF32>;
  t.tile[idx(TensorType::F16)] = tile<KF16>;
  t.tile[idx(TensorType::Q8_0)] = tile<KQ8_0>;
  t.tile[idx(TensorType::Q4_0)] = tile_q4_0_avx2;
  t.tile[idx(TensorType::Q5_0)] = tile<KQ5_0>;
  t.tile[idx(TensorType::Q4_1)] = tile<KQ4_1>;
  t.tile[idx(TensorType::Q5_1)] = tile<KQ5_1>;
  t.tile[idx(TensorType::Q4_K)] = tile<KQ4_K>;
  t.tile[idx(TensorType::Q5_K)] = tile<KQ5_K>;
  t.tile[idx(TensorType::Q6_K)] = tile<KQ6_K>;
  t.tile[idx(TensorType::IQ4_NL)] = tile<KIQ4_NL>;
  t.tile[idx(TensorType::IQ4_XS)] = tile<KIQ4_XS>;
}

}  // namespace a3s::power::kernels

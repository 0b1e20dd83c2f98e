// The AVX-512 path's 256-bit VNNI row and tile kernels (vnni256/tile.h, EVEX encoding) and its panel
// kernels (panel.cpp).
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__)
#error "avx512/*.cpp files are compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni"
#endif

#include <immintrin.h>

#define A3S_VNNI_DPBUSD _mm256_dpbusd_epi32
#define A3S_VNNI_DPWSSD _mm256_dpwssd_epi32
#include "kernels/vnni256/tile.h"

namespace a3s::power::kernels {
namespace {

// ---- Q4_K / Q5_K tiles of two or more tokens on 512-bit vectors ---------------------------------------
//
// The 256-bit tile (vnni256/tile.h) pairs 32 weight bytes with 32 activation bytes per instruction.
// Here one 512-bit vector holds a 64-element chunk — sub-blocks 2c and 2c+1, the low and the high
// nibbles of the same 32 packed bytes — whose 64 activation bytes lie next to each other in the Q8_K
// row, so every token takes one vpmaddubsw and one vpdpwssd per chunk instead of two of each; the two
// sub-blocks' scales sit in the two 256-bit halves of the scale vector. Each int32 lane is exact, so a
// token's total is the same integer in any grouping, and the float operations are the 256-bit kernel's
// (the reference's), in the same order: the results are the same bits.

// [lo | hi] (the zero-masked forms: GCC 12 warns about the undefined source of the unmasked ones).
inline __m512i join(__m256i lo, __m256i hi) {
  return _mm512_maskz_inserti64x4(static_cast<__mmask8>(0xFF), _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), lo), hi, 1);
}
// The low half plus the high half, lane by lane.
inline __m256i fold(__m512i v) {
  constexpr auto all = static_cast<__mmask8>(0xFF);
  return _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(all, v, 0), _mm512_maskz_extracti64x4_epi64(all, v, 1));
}

// The int16 scales of sub-blocks 2c (low half) and 2c+1 (high half) of `sc` (eight int16, vnni256's
// k4_scales), each repeated over its half.
inline __m512i chunk_scales(__m512i sc, int c) {
  const __m512i idx = join(_mm256_set1_epi16(static_cast<int16_t>(2 * c)), _mm256_set1_epi16(static_cast<int16_t>(2 * c + 1)));
  return _mm512_permutexvar_epi16(idx, sc);
}

// Weight bytes of chunk c: the low nibbles of qs[32c .. 32c+31] (sub-block 2c) in the low half, the
// high nibbles (sub-block 2c+1) in the high half; for Q5_K with their fifth bits from qh.
template <bool kFive>
inline __m512i chunk_weights(const uint8_t* qs, __m256i qh, int c) {
  __m256i lo, hi;
  k4_pair<kFive>(qs, qh, c, &lo, &hi);
  return join(lo, hi);
}

template <int NT, bool kFive>
void multi_k4_512(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  static_assert(NT >= 2 && NT <= 8);
  const Rows<BlockQ8_K, NT> b(x, xs);
  // Up to four tokens: lanes 0-3 carry the sums and 4-7 the mins of one accumulator; more tokens
  // take one accumulator of each.
  constexpr bool kJoint = NT <= 4;
  __m256 vsum = _mm256_setzero_ps(), vmins = _mm256_setzero_ps();
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
    __m128i mn;
    const __m512i sc = _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), k4_scales(scales, &mn));
    const float da = h2f(d16), dmin = h2f(dmin16);
    __m512i acc[NT];
    for (auto& v : acc) v = _mm512_setzero_si512();
    for (int c = 0; c < 4; ++c) {
      const __m512i wq = chunk_weights<kFive>(qs, qh, c);
      const __m512i s = chunk_scales(sc, c);
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm512_dpwssd_epi32(acc[t], _mm512_maddubs_epi16(wq, _mm512_loadu_si512(b.r[t][i].qs + 64 * c)), s);
    }
    // Per token: the eight lanes of the sums, and Σ_j mins[j]·(bsums[2j] + bsums[2j+1]) in four lanes.
    __m256i lanes[8], md[8];
    for (int t = 0; t < 8; ++t) {
      if (t < NT) {
        lanes[t] = fold(acc[t]);
        md[t] = _mm256_zextsi128_si256(
            _mm_madd_epi16(mn, _mm_hadd_epi16(load128(b.r[t][i].bsums), load128(b.r[t][i].bsums + 8))));
      } else {
        lanes[t] = md[t] = _mm256_setzero_si256();
      }
    }
    const __m256 bd = token_scales(b, i);
    if constexpr (kJoint) {
      // Lanes 0-3: token t's sum; lanes 4-7: its mins (hsum8_i32 of the sums then the mins).
      const __m256i v[8] = {lanes[0], lanes[1], lanes[2], lanes[3], md[0], md[1], md[2], md[3]};
      const __m256 f = _mm256_mul_ps(_mm256_permute2f128_ps(bd, bd, 0x00),
                                     _mm256_set_m128(_mm_set1_ps(dmin), _mm_set1_ps(da)));
      vsum = _mm256_fmadd_ps(f, _mm256_cvtepi32_ps(hsum8_i32(v)), vsum);
    } else {
      vmins = _mm256_fmadd_ps(_mm256_mul_ps(bd, _mm256_set1_ps(dmin)), _mm256_cvtepi32_ps(hsum8_i32(md)), vmins);
      vsum = _mm256_fmadd_ps(_mm256_mul_ps(bd, _mm256_set1_ps(da)), _mm256_cvtepi32_ps(hsum8_i32(lanes)), vsum);
    }
  }
  alignas(32) float o[8];
  if constexpr (kJoint) {
    _mm256_store_ps(o, vsum);
    for (int t = 0; t < NT; ++t) out[t] = o[t] - o[t + 4];
  } else {
    _mm256_store_ps(o, _mm256_sub_ps(vsum, vmins));
    for (int t = 0; t < NT; ++t) out[t] = o[t];
  }
}

// One token: the 256-bit kernel (a matrix-vector product is bound by memory, not by these µops).
template <int NT, bool kFive>
struct KK4Wide {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) {
    if constexpr (NT == 1) {
      multi_k4<1, kFive>(n, w, x, s, o);
    } else {
      multi_k4_512<NT, kFive>(n, w, x, s, o);
    }
  }
};
template <int NT>
using KQ4_KWide = KK4Wide<NT, false>;
template <int NT>
using KQ5_KWide = KK4Wide<NT, true>;

}  // namespace

void install_avx512_panel(KernelTable& t);  // panel.cpp

void install_avx512(KernelTable& t) {
  install_vnni256_tile(t);
  t.tile[idx(TensorType::Q4_K)] = tile<KQ4_KWide>;
  t.tile[idx(TensorType::Q5_K)] = tile<KQ5_KWide>;
  install_avx512_panel(t);
}

}  // namespace a3s::power::kernels

#pragma once
// Included by exactly one source file per instruction set (avx512/tile.cpp, avxvnni/tile.cpp), which
// defines A3S_VNNI_DPBUSD and A3S_VNNI_DPWSSD as its form of vpdpbusd / vpdpwssd (256-bit) first.
// Everything here has internal linkage, so each file keeps its own copy, compiled for its own ISA.
//
// 256-bit VNNI tile kernels for matmul, shared by the avx512 path (EVEX vpdpbusd, AVX-512 VL + VNNI)
// and the avxvnni path (the VEX form, AVX-VNNI, on CPUs without AVX-512): one weight row against up to
// eight tokens at a time, with the byte products summed by vpdpbusd (unsigned × signed bytes, four products into each int32 lane)
// instead of AVX2's vpmaddubsw + vpmaddwd. Lane j of a vpdpbusd sum covers bytes 4j..4j+3, the
// bytes AVX2's two-instruction sum puts into lane j, and both are exact, so every int32 lane - and
// with it every float operation, in the same order - is that of the AVX2 kernels (avx2/tile.cpp)
// and of the scalar reference (ref/vec_dot.cpp, lanes8.h): the results are the same bits. The
// K-quants, whose sub-blocks carry an integer scale, pair the bytes with vpmaddubsw and scale and add
// the pairs with vpdpwssd instead (scaled_dot), which gives the same lanes in fewer µops. The same
// kernels with one token are the vec_dot of these types (decode rows), where that measures faster.
// Types without a kernel here keep their AVX2 kernel (kernel_table.h). Q4_0 is one of them: a
// 256-bit vpdpbusd form, which sums every block horizontally to keep the reference's order, ran at
// half the AVX2 kernel's speed on an Intel Xeon; the avx512 path has a 512-bit sixteen-row Q4_0 tile
// of its own (avx512/tile.cpp). Every fused multiply-add is written out (the kernels are compiled
// with -ffp-contract=off).
//
// With A3S_VNNI_ZMM defined (the avx512 file), the K-quants' byte products run in 512-bit registers:
// the two 32-element sub-blocks that share 32 quant bytes (Q4_K / Q5_K), or two consecutive
// 32-element groups (Q6_K), are one vector against 64 consecutive activation bytes, with each 256-bit
// half scaled by its own sub-block's scale. Each int32 lane is still an exact sum, and the block's
// total is the same integer, so the results are the same bits with half the product instructions.
// On a Zen 5 this made Q6_K rows 1.2-1.7x faster (bench_kernels vec_dot, batch4) and left Q4_K's about
// as fast (their time goes to the per-block scales and reductions); with the K-quant mins met as
// int16 pairs (k4_min_lanes), a 4-sequence decode step of a 10B Q4_K_M model with streamed weights
// ran 4-8 % faster.
#include <type_traits>

#include "kernels/avx2/common.h"

namespace a3s::power::kernels {
namespace {

constexpr int kTokens = 8;  // tokens per weight pass
constexpr int kWideTokens = 4;  // K-quant tiles of this many tokens or more reduce them in one vector

// Σ over groups of four of unsigned a[i] · signed b[i] → 8 int32 lanes (lane j: bytes 4j..4j+3).
// Exact for any bytes; equal to avx2 dot_u8_i8 wherever that one is exact.
inline __m256i vnni_u8_i8(__m256i a, __m256i b) {
  return A3S_VNNI_DPBUSD(_mm256_setzero_si256(), a, b);
}

template <typename Block, int NT>
struct Rows {
  const Block* r[NT];
  Rows(const void* x, size_t stride) {
    for (int t = 0; t < NT; ++t)
      r[t] = reinterpret_cast<const Block*>(static_cast<const uint8_t*>(x) + t * stride);
  }
};

// ---- per-token totals, eight tokens at once -----------------------------------------------------------

// Lane t: the sum of the eight int32 lanes of v[t] (t < 8). Integer sums are exact in any order, so
// each lane equals hsum_i32(v[t]); one hadd tree replaces eight horizontal sums.
inline __m256i hsum8_i32(const __m256i v[8]) {
  const __m256i s01 = _mm256_hadd_epi32(v[0], v[1]), s23 = _mm256_hadd_epi32(v[2], v[3]);
  const __m256i s45 = _mm256_hadd_epi32(v[4], v[5]), s67 = _mm256_hadd_epi32(v[6], v[7]);
  const __m256i a = _mm256_hadd_epi32(s01, s23), b = _mm256_hadd_epi32(s45, s67);
  // a: tokens 0-3 of the low 128-bit halves, then of the high halves; b: the same for tokens 4-7.
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
}

// Lane t: the field `d` (a float) of block i of token t's row, 0 for t ≥ NT.
// Built in registers: written to the stack and loaded as one vector, the 32-byte load waits for the
// narrower stores before it (a store-forwarding stall on every block).
template <int NT, typename Block>
inline __m256 token_scales(const Rows<Block, NT>& b, int64_t i) {
  const auto d = [&](int t) { return t < NT ? b.r[t][i].d : 0.0f; };
  const auto quad = [&](int t0) {
    __m128 v = _mm_set_ss(d(t0));
    v = _mm_insert_ps(v, _mm_set_ss(d(t0 + 1)), 0x10);
    v = _mm_insert_ps(v, _mm_set_ss(d(t0 + 2)), 0x20);
    return _mm_insert_ps(v, _mm_set_ss(d(t0 + 3)), 0x30);
  };
  return NT <= 4 ? _mm256_insertf128_ps(_mm256_setzero_ps(), quad(0), 0) : _mm256_set_m128(quad(4), quad(0));
}

// ---- 32-element blocks against Q8_0 ------------------------------------------------------------------

template <int NT>
void multi_q8_0(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ8_0*>(w);
  const Rows<BlockQ8_0, NT> b(x, xs);
  __m256 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    prefetch_span(reinterpret_cast<const char*>(a + i) + kPrefetchAhead, sizeof a[i]);
    const __m256i qa = load256(a[i].qs);
    const __m256i aa = _mm256_abs_epi8(qa);  // |qa| ≤ 128 as an unsigned byte
    const float da = h2f(a[i].d);
    for (int t = 0; t < NT; ++t) {
      const __m256i s = vnni_u8_i8(aa, _mm256_sign_epi8(load256(b.r[t][i].qs), qa));
      acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(da * h2f(b.r[t][i].d)), _mm256_cvtepi32_ps(s), acc[t]);
    }
  }
  for (int t = 0; t < NT; ++t) out[t] = hsum(acc[t]);
}

// ---- K-quants against Q8_K -------------------------------------------------------------------------

// acc + lane j of (Σ over bytes 4j..4j+3 of unsigned a · signed b) · the int16 scale of lanes 2j, 2j+1
// of `scales16`: vpmaddubsw pairs the bytes (exact here: a ≤ 63, so |pair| ≤ 2·63·128 < 2^15), then
// vpdpwssd multiplies the pairs by their scale and adds them into acc in one instruction. The lane
// holds the same integer as avx2's maddubs + madd(scale) (or vpdpbusd followed by a multiply by the
// widened scale), without the 32-bit multiply, which is the slow part of that form on Intel cores.
inline __m256i scaled_dot(__m256i acc, __m256i a, __m256i b, __m256i scales16) {
  return A3S_VNNI_DPWSSD(acc, _mm256_maddubs_epi16(a, b), scales16);
}

#if defined(A3S_VNNI_ZMM)
// ---- 512-bit forms (A3S_VNNI_ZMM) ------------------------------------------------------------------

inline __m512i load512(const void* p) { return _mm512_loadu_si512(p); }

// The 256-bit halves of v added (the same int32 total, exact).
inline __m256i fold_halves(__m512i v) {
  const auto all4 = static_cast<__mmask8>(0x0F);
  return _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(all4, v, 0), _mm512_maskz_extracti64x4_epi64(all4, v, 1));
}

// a in the low 256-bit half, b in the high one.
inline __m512i join_halves(__m256i a, __m256i b) {
  const __m512i low = _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0x0F), a);
  return _mm512_mask_broadcast_i64x4(low, static_cast<__mmask8>(0xF0), b);
}

// Every int16 of the low half = lo, of the high half = hi.
inline __m512i halves16(int lo, int hi) {
  return _mm512_mask_set1_epi16(_mm512_set1_epi16(static_cast<int16_t>(lo)), static_cast<__mmask32>(0xFFFF0000u),
                                static_cast<int16_t>(hi));
}

// acc + the 512-bit scaled_dot: vpmaddubsw then vpdpwssd, lane by lane as in the 256-bit form.
inline __m512i scaled_dot512(__m512i acc, __m512i a, __m512i b, __m512i scales16) {
  return _mm512_dpwssd_epi32(acc, _mm512_maddubs_epi16(a, b), scales16);
}

// Groups 2g and 2g + 1 of half h of a Q6_K block (q6k_half's q[2g], q[2g + 1]) in one vector.
inline void q6k_half512(const uint8_t* ql, const uint8_t* qh, int h, __m512i* q) {
  const __m512i m4 = _mm512_set1_epi8(0x0F);
  const __m512i m30 = _mm512_set1_epi8(0x30);
  const __m512i l = load512(ql + 64 * h);
  const __m512i hb = _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), load256(qh + 32 * h));
  q[0] = _mm512_or_si512(_mm512_and_si512(l, m4), _mm512_and_si512(_mm512_sllv_epi16(hb, halves16(4, 2)), m30));
  q[1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(l, 4), m4),
                         _mm512_and_si512(_mm512_srlv_epi16(hb, halves16(0, 2)), m30));
}

// Every int16 of 128-bit lane k = scale 4j + k of the sixteen int16 scales in sc16 (j = 0..3): the
// scales of the four 16-element groups of q6k_half512's vector j % 2 of half j / 2.
inline __m512i q6k_scales512(__m256i sc16, int j) {
  const __m512i lane = _mm512_set_epi64(0x0003000300030003, 0x0003000300030003, 0x0002000200020002,
                                        0x0002000200020002, 0x0001000100010001, 0x0001000100010001, 0, 0);
  const __m512i idx = _mm512_add_epi16(lane, _mm512_set1_epi16(static_cast<int16_t>(4 * j)));
  return _mm512_permutexvar_epi16(idx, _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), sc16));
}
#endif

// The fields of super-block i of a Q4_K / Q5_K (kFive) row, the scales and mins unpacked; asks for
// the bytes kPrefetchAhead ahead.
struct K4Block {
  const uint8_t* qs;
  __m256i qh;         // Q5_K's fifth bits (zero for Q4_K)
  __m256i sc;         // k4_scales
  __m256i min_pairs;  // k4_scales
  float d, dmin;
};
template <bool kFive>
inline K4Block k4_block(const void* w, int64_t i) {
  using Block = std::conditional_t<kFive, BlockQ5_K, BlockQ4_K>;
  const Block& blk = static_cast<const Block*>(w)[i];
  prefetch_span(reinterpret_cast<const char*>(&blk) + kPrefetchAhead, sizeof blk);
  K4Block k;
  k.qs = blk.qs;
  if constexpr (kFive) {
    k.qh = load256(blk.qh);
  } else {
    k.qh = _mm256_setzero_si256();
  }
  k.sc = k4_scales(blk.scales, &k.min_pairs);
  k.d = h2f(blk.d);
  k.dmin = h2f(blk.dmin);
  return k;
}

// isum[r][t] = the int32 lanes of Σ scale · q · x over super-block i of row r (blk[r]) and token t,
// for R rows and NT tokens; every lane exact, so any lane layout gives the same total.
template <int R, int NT, bool kFive>
inline void k4_products(const K4Block (&blk)[R], const Rows<BlockQ8_K, NT>& b, int64_t i, __m256i (&isum)[R][NT]) {
#if defined(A3S_VNNI_ZMM)
  // Sub-blocks 2c and 2c + 1 side by side, as their activations lie in the Q8_K block.
  __m512i sc2[R];
  __m512i acc[R][NT];
  for (int r = 0; r < R; ++r) {
    sc2[r] = _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), blk[r].sc);
    for (auto& v : acc[r]) v = _mm512_setzero_si512();
  }
  for (int c = 0; c < 4; ++c) {
    __m512i q[R], s[R];
    for (int r = 0; r < R; ++r) {
      __m256i lo, hi;
      k4_pair<kFive>(blk[r].qs, blk[r].qh, c, &lo, &hi);
      q[r] = join_halves(lo, hi);
      s[r] = _mm512_permutexvar_epi16(halves16(2 * c, 2 * c + 1), sc2[r]);
    }
    for (int t = 0; t < NT; ++t) {
      const __m512i xv = load512(b.r[t][i].qs + 64 * c);
      for (int r = 0; r < R; ++r) acc[r][t] = scaled_dot512(acc[r][t], q[r], xv, s[r]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NT; ++t) isum[r][t] = fold_halves(acc[r][t]);
#else
  for (int r = 0; r < R; ++r)
    for (auto& v : isum[r]) v = _mm256_setzero_si256();
  for (int c = 0; c < 4; ++c) {
    __m256i lo[R], hi[R], slo[R], shi[R];
    for (int r = 0; r < R; ++r) {
      k4_pair<kFive>(blk[r].qs, blk[r].qh, c, &lo[r], &hi[r]);
      slo[r] = bcast16(blk[r].sc, 2 * c);
      shi[r] = bcast16(blk[r].sc, 2 * c + 1);
    }
    for (int t = 0; t < NT; ++t) {
      const int8_t* q8 = b.r[t][i].qs + 64 * c;
      const __m256i x0 = load256(q8), x1 = load256(q8 + 32);
      for (int r = 0; r < R; ++r) isum[r][t] = scaled_dot(scaled_dot(isum[r][t], lo[r], x0, slo[r]), hi[r], x1, shi[r]);
    }
  }
#endif
}

// Q4_K / Q5_K (kFive): 8 sub-blocks of 32 with 6-bit scales and mins.
template <int NT, bool kFive>
void multi_k4(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  // From kWideTokens tokens on, the per-token totals are formed in the lanes of one vector.
  constexpr bool kWide = NT >= kWideTokens;
  const Rows<BlockQ8_K, NT> b(x, xs);
  float sum[NT], mins[NT];
  for (int t = 0; t < NT; ++t) sum[t] = mins[t] = 0.0f;
  __m256 vsum = _mm256_setzero_ps(), vmins = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const K4Block blk[1] = {k4_block<kFive>(w, i)};
    const float da = blk[0].d, dmin = blk[0].dmin;
    if constexpr (!kWide) {
      for (int t = 0; t < NT; ++t)
        mins[t] = std::fma(b.r[t][i].d * dmin, static_cast<float>(k4_min_dot(blk[0].min_pairs, b.r[t][i].bsums)),
                           mins[t]);
    }
    __m256i prod[1][NT];
    k4_products<1, NT, kFive>(blk, b, i, prod);
    if constexpr (kWide) {
      // Lane t is token t's scalar form below: the same products, converts and fused adds.
      __m256i md[8], isum[8];
      for (int t = 0; t < 8; ++t) {
        md[t] = t < NT ? k4_min_lanes(blk[0].min_pairs, b.r[t][i].bsums) : _mm256_setzero_si256();
        isum[t] = t < NT ? prod[0][t] : _mm256_setzero_si256();
      }
      const __m256 bd = token_scales(b, i);
      vmins = _mm256_fmadd_ps(_mm256_mul_ps(bd, _mm256_set1_ps(dmin)), _mm256_cvtepi32_ps(hsum8_i32(md)), vmins);
      vsum = _mm256_fmadd_ps(_mm256_mul_ps(bd, _mm256_set1_ps(da)), _mm256_cvtepi32_ps(hsum8_i32(isum)), vsum);
    } else {
      for (int t = 0; t < NT; ++t)
        sum[t] = std::fma(b.r[t][i].d * da, static_cast<float>(hsum_i32(prod[0][t])), sum[t]);
    }
  }
  if constexpr (kWide) {
    alignas(32) float o[8];
    _mm256_store_ps(o, _mm256_sub_ps(vsum, vmins));
    for (int t = 0; t < NT; ++t) out[t] = o[t];
  } else {
    for (int t = 0; t < NT; ++t) out[t] = sum[t] - mins[t];
  }
}

// Two rows of Q4_K / Q5_K (kFive), w and w + w_stride, against NT ≤ 4 tokens: (row r, token t) in
// lane 4r + t of one vector, so one reduction tree, scale product and fused add serve eight pairs,
// and each activation vector is loaded once for both rows. Per pair these are multi_k4's (and the
// scalar reference's) integers and float operations in the same order: the same bits. out[r][t].
template <int NT, bool kFive>
void multi_k4_rows2(int64_t n, const uint8_t* w, size_t w_stride, const void* x, size_t xs, float (&out)[2][4]) {
  static_assert(NT >= 1 && NT <= 4);
  const Rows<BlockQ8_K, NT> b(x, xs);
  __m256 vsum = _mm256_setzero_ps(), vmins = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const K4Block blk[2] = {k4_block<kFive>(w, i), k4_block<kFive>(w + w_stride, i)};
    __m256i prod[2][NT];
    k4_products<2, NT, kFive>(blk, b, i, prod);
    __m256i md[8], isum[8];
    for (int r = 0; r < 2; ++r) {
      for (int t = 0; t < 4; ++t) {
        md[4 * r + t] = t < NT ? k4_min_lanes(blk[r].min_pairs, b.r[t][i].bsums) : _mm256_setzero_si256();
        isum[4 * r + t] = t < NT ? prod[r][t] : _mm256_setzero_si256();
      }
    }
    const __m256 bd = token_scales(b, i);  // tokens in lanes 0-3
    const __m256 bd2 = _mm256_permute2f128_ps(bd, bd, 0x00);
    const __m256 da = _mm256_set_m128(_mm_set1_ps(blk[1].d), _mm_set1_ps(blk[0].d));
    const __m256 dmin = _mm256_set_m128(_mm_set1_ps(blk[1].dmin), _mm_set1_ps(blk[0].dmin));
    vmins = _mm256_fmadd_ps(_mm256_mul_ps(bd2, dmin), _mm256_cvtepi32_ps(hsum8_i32(md)), vmins);
    vsum = _mm256_fmadd_ps(_mm256_mul_ps(bd2, da), _mm256_cvtepi32_ps(hsum8_i32(isum)), vsum);
  }
  alignas(32) float o[8];
  _mm256_store_ps(o, _mm256_sub_ps(vsum, vmins));
  for (int r = 0; r < 2; ++r)
    for (int t = 0; t < NT; ++t) out[r][t] = o[4 * r + t];
}

template <int NT>
void multi_q6_k(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  const auto* a = static_cast<const BlockQ6_K*>(w);
  constexpr bool kWide = NT >= kWideTokens;
  const Rows<BlockQ8_K, NT> b(x, xs);
  float sum[NT];
  for (int t = 0; t < NT; ++t) sum[t] = 0.0f;
  __m256 vsum = _mm256_setzero_ps();
  for (int64_t i = 0; i < n / kQKK; ++i) {
    prefetch_span(reinterpret_cast<const char*>(a + i) + kPrefetchAhead, sizeof a[i]);
    const __m256i sc_vec = _mm256_cvtepi8_epi16(load128(a[i].scales));
    __m256i isum[kWide ? 8 : NT];
    for (auto& v : isum) v = _mm256_setzero_si256();
#if defined(A3S_VNNI_ZMM)
    __m512i isum512[NT];
    for (auto& v : isum512) v = _mm512_setzero_si512();
    for (int half = 0; half < 2; ++half) {
      __m512i q[2];
      q6k_half512(a[i].ql, a[i].qh, half, q);
      for (int g = 0; g < 2; ++g) {
        const __m512i s = q6k_scales512(sc_vec, 2 * half + g);
        for (int t = 0; t < NT; ++t)
          isum512[t] = scaled_dot512(isum512[t], q[g], load512(b.r[t][i].qs + 128 * half + 64 * g), s);
      }
    }
    for (int t = 0; t < NT; ++t) isum[t] = fold_halves(isum512[t]);
#else
    const __m256i sc_half[2] = {_mm256_permute2x128_si256(sc_vec, sc_vec, 0x00),
                                _mm256_permute2x128_si256(sc_vec, sc_vec, 0x11)};
    for (int half = 0; half < 2; ++half) {
      __m256i q[4];
      q6k_half(a[i].ql, a[i].qh, half, q);
      for (int p = 0; p < 4; ++p) {
        const __m256i s = pair16(sc_half[half], p);
        for (int t = 0; t < NT; ++t) {
          const int8_t* q8 = b.r[t][i].qs + 128 * half + 32 * p;
          isum[t] = scaled_dot(isum[t], q[p], load256(q8), s);
        }
      }
    }
#endif
    const float da = h2f(a[i].d);
    // Σ q·x − 32·Σ scale·bsum, reduced once (the integers are exact in any order).
    for (int t = 0; t < NT; ++t) {
      const __m256i bias = _mm256_slli_epi32(_mm256_madd_epi16(sc_vec, load256(b.r[t][i].bsums)), 5);
      isum[t] = _mm256_sub_epi32(isum[t], bias);
    }
    if constexpr (kWide) {  // lane t is token t's scalar form below
      vsum = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(da), token_scales(b, i)),
                             _mm256_cvtepi32_ps(hsum8_i32(isum)), vsum);
    } else {
      for (int t = 0; t < NT; ++t)
        sum[t] = std::fma(da * b.r[t][i].d, static_cast<float>(hsum_i32(isum[t])), sum[t]);
    }
  }
  if constexpr (kWide) {
    alignas(32) float o[8];
    _mm256_store_ps(o, vsum);
    for (int t = 0; t < NT; ++t) out[t] = o[t];
  } else {
    for (int t = 0; t < NT; ++t) out[t] = sum[t];
  }
}

// ---- tile driver -------------------------------------------------------------------------------------

template <template <int> class K, int NT>
void run_tail(int64_t n, const void* w, const void* x, size_t xs, float* out) {
  if constexpr (NT >= 1) K<NT>::run(n, w, x, xs, out);
}

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
      case 7: K<7>::run(n, w, xt, x_stride, out); break;
      case 6: K<6>::run(n, w, xt, x_stride, out); break;
      case 5: K<5>::run(n, w, xt, x_stride, out); break;
      case 4: K<4>::run(n, w, xt, x_stride, out); break;
      case 3: K<3>::run(n, w, xt, x_stride, out); break;
      case 2: K<2>::run(n, w, xt, x_stride, out); break;
      case 1: K<1>::run(n, w, xt, x_stride, out); break;
      default: break;
    }
    for (int k = 0; k < n_x - t; ++k)
      Y[static_cast<size_t>(t + k) * y_stride + static_cast<size_t>(r)] = out[k];
  }
}

template <int NT>
struct KQ8_0 {
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) { multi_q8_0<NT>(n, w, x, s, o); }
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
  static void run(int64_t n, const void* w, const void* x, size_t s, float* o) { multi_q6_k<NT>(n, w, x, s, o); }
};

// Q4_K / Q5_K: rows in pairs against four tokens at a time (multi_k4_rows2); an odd last row takes
// tile<K>. From two tokens on: on a Zen 5 the pairs made a four-token product 10 % faster
// (bench_kernels batch4, one thread) and a one-token product 10 % faster in cache but 15-20 %
// slower from DRAM (bench_kernels memory/*), so one token (decode) keeps tile<K>.
constexpr int kK4PairFromTokens = 2;
template <bool kFive, template <int> class K>
void tile_k4(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride, int n_x, float* Y,
             size_t y_stride) {
  int r = 0;
  if (n_x >= kK4PairFromTokens) {
    for (; r + 2 <= n_w; r += 2) {
      const uint8_t* w = static_cast<const uint8_t*>(W) + static_cast<size_t>(r) * w_stride;
      for (int t = 0; t < n_x; t += 4) {
        const uint8_t* xt = static_cast<const uint8_t*>(X) + static_cast<size_t>(t) * x_stride;
        float out[2][4];
        switch (std::min(4, n_x - t)) {
          case 4: multi_k4_rows2<4, kFive>(n, w, w_stride, xt, x_stride, out); break;
          case 3: multi_k4_rows2<3, kFive>(n, w, w_stride, xt, x_stride, out); break;
          case 2: multi_k4_rows2<2, kFive>(n, w, w_stride, xt, x_stride, out); break;
          default: multi_k4_rows2<1, kFive>(n, w, w_stride, xt, x_stride, out); break;
        }
        for (int k = 0; k < std::min(4, n_x - t); ++k) {
          Y[static_cast<size_t>(t + k) * y_stride + static_cast<size_t>(r)] = out[0][k];
          Y[static_cast<size_t>(t + k) * y_stride + static_cast<size_t>(r + 1)] = out[1][k];
        }
      }
    }
  }
  if (r < n_w)
    tile<K>(n, static_cast<const uint8_t*>(W) + static_cast<size_t>(r) * w_stride, w_stride, n_w - r, X, x_stride,
            n_x, Y + r, y_stride);
}

template <template <int> class K>
void dot_one(int64_t n, float* out, const void* w, const void* x) {
  K<1>::run(n, w, x, 0, out);
}

// The kernels above into a table (the including ISA's install function calls it).
void install_vnni256_tile(KernelTable& t) {
  t.vec_dot[idx(TensorType::Q8_0)] = dot_one<KQ8_0>;
  t.vec_dot[idx(TensorType::Q4_K)] = dot_one<KQ4_K>;
  t.vec_dot[idx(TensorType::Q5_K)] = dot_one<KQ5_K>;
  t.vec_dot[idx(TensorType::Q6_K)] = dot_one<KQ6_K>;
  t.tile[idx(TensorType::Q8_0)] = tile<KQ8_0>;
  t.tile[idx(TensorType::Q4_K)] = tile_k4<false, KQ4_K>;
  t.tile[idx(TensorType::Q5_K)] = tile_k4<true, KQ5_K>;
  t.tile[idx(TensorType::Q6_K)] = tile<KQ6_K>;
}

}  // namespace
}  // namespace a3s::power::kernels

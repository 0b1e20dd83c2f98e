// Helpers shared by the AVX2 kernel files (avx2/*.cpp), which are the only files compiled with
// -mavx2 -mfma -mf16c. Everything here has internal linkage (unnamed namespace) so no out-of-line
// copy compiled with AVX2 can be shared with code that must run on any x86-64. For the same reason
// the AVX2 files use no standard-library templates.
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#error "include avx2/common.h only from avx2/*.cpp files (compiled with -mavx2 -mfma -mf16c)"
#endif

#include <immintrin.h>
#include <cmath>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/kernel_table.h"

namespace a3s::power::kernels {
namespace {

inline constexpr size_t idx(TensorType t) {
  return static_cast<size_t>(t);
}

inline float h2f(uint16_t h) {
  return _cvtsh_ss(h);
}  // exact, as half::fp16_to_fp32

// Sum of the 8 floats of v.
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Sum of the 8 int32 of v.
inline int hsum_i32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
inline __m128i load128(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

// 16 bytes of nibbles → 32 bytes: low nibbles in bytes 0..15, high nibbles in bytes 16..31
// (the element order of Q4_0/Q4_1/Q5 blocks).
inline __m256i unpack_nibbles(const uint8_t* p) {
  const __m128i q = load128(p);
  const __m256i both = _mm256_set_m128i(_mm_srli_epi16(q, 4), q);
  return _mm256_and_si256(both, _mm256_set1_epi8(0x0F));
}

// 32 bits → 32 bytes, byte i = 0xFF when bit i of `bits` is set, else 0.
inline __m256i spread_bits(uint32_t bits) {
  const __m256i v = _mm256_set1_epi32(static_cast<int>(bits));
  // Byte i takes source byte i / 8.
  const __m256i shuf = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
  const __m256i bytes = _mm256_shuffle_epi8(v, shuf);
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
  return _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
}

// Software prefetch of weight rows. Decode and small batches (a batched decode step of a few
// sequences) read every weight once, in address order, and do little arithmetic per byte; asking for
// the bytes kPrefetchAhead ahead of the ones being used keeps memory reads in flight while the kernel
// computes. The tile kernels prefetch at every token count: with 4 tokens per weight pass this
// doubled the matmul speed on an Intel Xeon (docs/benchmarks.md), and larger tiles lose nothing.
// Two pages ahead rather than half of one: on a Zen 5 that read Q8_0 and Q6_K rows from memory
// 10-30 % faster (bench_kernels memory/*) and made llama-1b Q8_0 decode 14 % faster.
// Prefetching never faults, so reading ahead past the end of a matrix is harmless.
inline constexpr size_t kPrefetchAhead = 8192;
// Into the first-level cache (prefetcht0) by default, or the second (prefetcht1: kernel_table.h,
// PrefetchInto).
template <PrefetchInto kInto = PrefetchInto::kL1>
inline void prefetch_span(const void* p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o, 0, static_cast<int>(kInto));
}

// Σ over pairs of unsigned a[i]·signed b[i] → 8 int32 lanes (each the sum of 4 products).
// Requires a ≤ 255 and |b| ≤ 127 with 2·a·|b| ≤ 32767 (true for every use here).
inline __m256i dot_u8_i8(__m256i a, __m256i b) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1));
}

// Σ signed a[i]·signed b[i] → 8 int32 lanes. |a| ≤ 128, |b| ≤ 127.
inline __m256i dot_i8_i8(__m256i a, __m256i b) {
  return dot_u8_i8(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
}

// The 128 quants of half h of a Q6_K block (ql, qh of the block) as four 32-byte vectors, element
// 128h + 32p + l in byte l of q[p], unsigned 0..63: the low four bits from the low (p < 2) or high
// nibble of ql[64h + 32(p % 2) + l], the two high bits from bits 2p of qh[32h + l], shifted into bits
// 4-5 (a 16-bit shift moves no bit of one byte into bits 4-5 of another).
inline void q6k_half(const uint8_t* ql, const uint8_t* qh, int h, __m256i* q) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i m30 = _mm256_set1_epi8(0x30);
  const __m256i l0 = load256(ql + 64 * h);
  const __m256i l1 = load256(ql + 64 * h + 32);
  const __m256i hb = load256(qh + 32 * h);
  q[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
  q[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
  q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(hb, m30));
  q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                         _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
}

// The quants of sub-blocks 2c (*lo) and 2c + 1 (*hi) of a Q4_K / Q5_K block, from qs[32c .. 32c+31]'s
// low and high nibbles; Q5_K (kFive): with the fifth bit of element 32j + l from bit j of qh[l] (qh:
// the block's 32 qh bytes as one vector).
template <bool kFive>
inline void k4_pair(const uint8_t* qs, __m256i qh, int c, __m256i* lo, __m256i* hi) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i q = load256(qs + 32 * c);
  *lo = _mm256_and_si256(q, m4);
  *hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
  if constexpr (kFive) {
    const __m256i one = _mm256_set1_epi8(1);
    *lo = _mm256_or_si256(*lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4));
    *hi = _mm256_or_si256(*hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4));
  }
}

// Unpacks the eight 6-bit scales and eight 6-bit mins of a Q4_K / Q5_K block (12 bytes): bytes 0-3
// hold scales 0-3 (+ the high bits of scales 4-7 in bits 6-7), bytes 4-7 mins 0-3 (+ the high bits of
// mins 4-7), bytes 8-11 the low nibbles of scales 4-7 and, above them, of mins 4-7. Reads 16 bytes
// from s: in every K block the scales are followed by at least 4 more bytes of the block. Returns
// the scales as int16 in both 128-bit lanes (for bcast16) and stores the mins as int16 pairs in
// *min_pairs (min j in elements 2j and 2j + 1, to meet a Q8_K block's sixteen bsums).
inline __m256i k4_scales(const uint8_t* s, __m256i* min_pairs) {
  const __m128i v = load128(s);
  // Dwords: bytes 0-3, 8-11, 4-7, 8-11 (the low bits of scales 0-3, 4-7, mins 0-3, 4-7) ...
  const __m128i lo_src = _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11));
  // ... and 0, bytes 0-3, 0, bytes 4-7 (the high bits of scales 4-7 and mins 4-7).
  const __m128i hi_src = _mm_shuffle_epi8(v, _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7));
  const __m128i low = _mm_and_si128(_mm_srlv_epi32(lo_src, _mm_setr_epi32(0, 0, 0, 4)),
                                    _mm_setr_epi32(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F));
  // (b >> 6) << 4 of every byte b.
  const __m128i high = _mm_and_si128(_mm_srli_epi32(hi_src, 2), _mm_set1_epi8(0x30));
  const __m128i codes = _mm_or_si128(low, high);  // scales 0-7 in bytes 0-7, mins 0-7 in bytes 8-15
  *min_pairs = _mm256_cvtepu8_epi16(
      _mm_shuffle_epi8(codes, _mm_setr_epi8(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15)));
  return _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(codes));
}

// Lane j: min j · (bsums[2j] + bsums[2j+1]), the min term of sub-block j of a Q8_K block (exact:
// |bsum| ≤ 16·128, min ≤ 63). Its eight lanes sum to k4_min_dot.
inline __m256i k4_min_lanes(__m256i min_pairs, const int16_t* bsums) {
  return _mm256_madd_epi16(min_pairs, load256(bsums));
}

// Σ_j min j · (bsums[2j] + bsums[2j+1]) over the eight 32-element sub-blocks of a Q8_K block.
inline int k4_min_dot(__m256i min_pairs, const int16_t* bsums) { return hsum_i32(k4_min_lanes(min_pairs, bsums)); }

// Shuffle controls over int16 elements of a 128-bit lane: kBcast16[k] copies element k to every
// element of both lanes; kPair16[p] copies element 2p to the low lane and element 2p + 1 to the high
// lane. Used on vectors whose two lanes hold the same eight scales.
struct alignas(32) ShuffleControl {
  int8_t b[32];
};
inline constexpr ShuffleControl make_bcast16(int lo, int hi) {
  ShuffleControl c{};
  for (int i = 0; i < 32; i += 2) {
    const int e = i < 16 ? lo : hi;
    c.b[i] = static_cast<int8_t>(2 * e);
    c.b[i + 1] = static_cast<int8_t>(2 * e + 1);
  }
  return c;
}
alignas(32) inline constexpr ShuffleControl kBcast16[8] = {
    make_bcast16(0, 0), make_bcast16(1, 1), make_bcast16(2, 2), make_bcast16(3, 3),
    make_bcast16(4, 4), make_bcast16(5, 5), make_bcast16(6, 6), make_bcast16(7, 7)};
alignas(32) inline constexpr ShuffleControl kPair16[4] = {make_bcast16(0, 1), make_bcast16(2, 3),
                                                          make_bcast16(4, 5), make_bcast16(6, 7)};

// Every int16 lane = element k of the eight int16 scales held in both lanes of `scales`.
inline __m256i bcast16(__m256i scales, int k) {
  return _mm256_shuffle_epi8(scales, load256(kBcast16[k].b));
}
// Low lane = element 2p, high lane = element 2p + 1 (the two scales of a 32-byte product vector whose
// halves are two 16-element groups).
inline __m256i pair16(__m256i scales, int p) {
  return _mm256_shuffle_epi8(scales, load256(kPair16[p].b));
}

// Two int16 scales for the two 16-element halves of a 32-byte product vector: lanes from bytes 0..15
// get lo, lanes from bytes 16..31 get hi.
inline __m256i scale_pair(int lo, int hi) {
  return _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(hi)), _mm_set1_epi16(static_cast<int16_t>(lo)));
}

// Σ_g scale16[g] · bsums[g] over the 16 groups of 16 of a Q8_K block.
inline int scaled_bsums(__m256i scale16, const int16_t* bsums) {
  return hsum_i32(_mm256_madd_epi16(scale16, load256(bsums)));
}

// The sixteen signed 6-bit scales of a Q3_K block (already minus 32) as int16: low nibbles of
// scales 0-7 in bytes 0-7, of scales 8-15 in the high nibbles of the same bytes; high 2-bit pairs in
// bytes 8-11 (scale j uses bits 2·(j/4) of byte 8 + j%4).
inline __m256i q3k_scales16(const uint8_t* s) {
  uint32_t w[3];
  std::memcpy(w, s, 12);
  const uint32_t low4 = 0x0F0F0F0Fu, low2 = 0x03030303u;
  const uint32_t v[4] = {(w[0] & low4) | ((w[2] & low2) << 4), (w[1] & low4) | (((w[2] >> 2) & low2) << 4),
                         ((w[0] >> 4) & low4) | (((w[2] >> 4) & low2) << 4),
                         ((w[1] >> 4) & low4) | (((w[2] >> 6) & low2) << 4)};
  const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v));
  return _mm256_sub_epi16(_mm256_cvtepu8_epi16(codes), _mm256_set1_epi16(32));
}

}  // namespace
// Installers of the AVX2 files (see install_avx2 in kernel_table.h).
void install_avx2_vec_dot(KernelTable& t);  // avx2/vec_dot.cpp
void install_avx2_convert(KernelTable& t);  // avx2/convert.cpp
void install_avx2_tile(KernelTable& t);     // avx2/tile.cpp
void install_avx2_bf16(KernelTable& t);     // avx2/bf16_pairs.cpp
void install_avx2_exp(KernelTable& t);      // avx2/exp.cpp
void install_avx2_dot_f16_lanes16(KernelTable& t);  // avx2/dot_f16_lanes16.cpp

}  // namespace a3s::power::kernels

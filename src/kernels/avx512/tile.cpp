// The AVX-512 path's row and tile kernels: the VNNI kernels (vnni256/tile.h, EVEX encoding, the
// K-quants' products in 512-bit registers),
// a 512-bit Q4_0 tile of sixteen rows per pass (below), the panel kernels (panel.cpp) and the
// attention's F16 dot products (dot_f16_lanes16.cpp).
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__)
#error "avx512/*.cpp files are compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni"
#endif

#include <immintrin.h>

#include <algorithm>

#define A3S_VNNI_DPBUSD _mm256_dpbusd_epi32
#define A3S_VNNI_DPWSSD _mm256_dpwssd_epi32
#define A3S_VNNI_ZMM
#include "kernels/vnni256/tile.h"

namespace a3s::power::kernels {

void install_avx512_dot_f16_lanes16(KernelTable& t);  // dot_f16_lanes16.cpp

namespace {

// ---- Q4_0, sixteen rows per pass ------------------------------------------------------------------
//
// The rows' blocks are read as they are stored (no repacking): vector j (0..3) holds the sixteen
// packed bytes of rows j, 4 + j, 8 + j, 12 + j in its four 128-bit lanes. vpdpbusd against the
// token's sixteen low and sixteen high activation bytes, broadcast to every lane, leaves four exact
// partial sums per row; a 4×4 transpose-add per lane turns the four vectors into one, whose lane r is
// row r's Σ q·x with the unsigned nibbles q. Σ (q − 8)·x = that − 8·Σ x (exact), converted and added
// by one FMA with d_w·d_x per block in block order: per (row, token) the operations of the scalar
// reference and of the AVX2 kernel (avx2/tile.cpp, rows8_q4_0), so the results are the same bits.
// The sixteen d_w are gathered (a dword per row at the block's start; its low half is d).

constexpr int kQ40Rows = 16;
constexpr int kQ40Tokens = 4;  // tokens per pass over the sixteen rows
// Every lane: the zero-masked forms of the intrinsics (GCC 12 warns about the undefined source
// register of the unmasked ones).
constexpr __mmask16 kAll = 0xFFFF;

// The 16-byte quants of block i of rows j, 4 + j, 8 + j, 12 + j in lanes 0-3.
inline __m512i gather_rows4(const uint8_t* const* row, int j, int64_t i) {
  const auto at = [&](int r) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[r] + i * sizeof(BlockQ4_0) + 2));
  };
  __m512i v = _mm512_maskz_broadcast_i32x4(static_cast<__mmask16>(0x000F), at(j));
  v = _mm512_mask_broadcast_i32x4(v, static_cast<__mmask16>(0x00F0), at(4 + j));
  v = _mm512_mask_broadcast_i32x4(v, static_cast<__mmask16>(0x0F00), at(8 + j));
  return _mm512_mask_broadcast_i32x4(v, static_cast<__mmask16>(0xF000), at(12 + j));
}

// Lane 4k + j = the sum of the four int32 of lane k of v[j].
inline __m512i transpose_add4(const __m512i v[4]) {
  const auto lo32 = [](__m512i a, __m512i b) { return _mm512_maskz_unpacklo_epi32(kAll, a, b); };
  const auto hi32 = [](__m512i a, __m512i b) { return _mm512_maskz_unpackhi_epi32(kAll, a, b); };
  const __m512i ab = _mm512_add_epi32(lo32(v[0], v[1]), hi32(v[0], v[1]));
  const __m512i cd = _mm512_add_epi32(lo32(v[2], v[3]), hi32(v[2], v[3]));
  const auto all64 = static_cast<__mmask8>(0xFF);
  return _mm512_add_epi32(_mm512_maskz_unpacklo_epi64(all64, ab, cd), _mm512_maskz_unpackhi_epi64(all64, ab, cd));
}

// Rows r ≥ n_w (a last group of fewer than sixteen) read row n_w − 1 again and are not stored.
template <int NT>
void rows16_q4_0(int64_t n, const uint8_t* W, size_t w_stride, int n_w, const uint8_t* X, size_t x_stride,
                 float* Y, size_t y_stride) {
  const uint8_t* row[kQ40Rows];
  alignas(64) int64_t offset[kQ40Rows];
  for (int r = 0; r < kQ40Rows; ++r) {
    offset[r] = static_cast<int64_t>(std::min(r, n_w - 1)) * static_cast<int64_t>(w_stride);
    row[r] = W + offset[r];
  }
  const __m512i offsets_lo = _mm512_load_si512(offset), offsets_hi = _mm512_load_si512(offset + 8);
  const __m512i m4 = _mm512_set1_epi8(0x0F);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const BlockQ8_0* x[NT];
  for (int t = 0; t < NT; ++t) x[t] = reinterpret_cast<const BlockQ8_0*>(X + static_cast<size_t>(t) * x_stride);
  __m512 acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t i = 0; i < n / kQK; ++i) {
    // Reads the next sixteen rows while these are computed (they follow in memory).
    prefetch_span(W + kQ40Rows * w_stride + i * kQ40Rows * sizeof(BlockQ4_0), kQ40Rows * sizeof(BlockQ4_0));
    __m512i lo[4], hi[4];
    for (int j = 0; j < 4; ++j) {
      const __m512i q = gather_rows4(row, j, i);
      lo[j] = _mm512_and_si512(q, m4);
      hi[j] = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
    }
    // The dword at each row's block start; its low half is d.
    const uint8_t* base = W + i * sizeof(BlockQ4_0);
    const auto all8 = static_cast<__mmask8>(0xFF);
    const __m256i d_lo = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), all8, offsets_lo, base, 1);
    const __m256i d_hi = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), all8, offsets_hi, base, 1);
    const __m256i d16 = _mm256_set_m128i(_mm256_maskz_cvtepi32_epi16(all8, d_hi), _mm256_maskz_cvtepi32_epi16(all8, d_lo));
    const __m512 dw = _mm512_maskz_cvtph_ps(kAll, d16);
    for (int t = 0; t < NT; ++t) {
      const int8_t* xq = x[t][i].qs;
      const __m512i xlo = _mm512_maskz_broadcast_i32x4(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(xq)));
      const __m512i xhi = _mm512_maskz_broadcast_i32x4(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(xq + 16)));
      __m512i part[4];
      for (int j = 0; j < 4; ++j)
        part[j] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo[j], xlo), hi[j], xhi);
      // Σ (x + 128) by byte sums, then 8 · Σ x = 8 · (that − 32 · 128).
      const __m256i s = _mm256_sad_epu8(_mm256_xor_si256(load256(xq), flip), _mm256_setzero_si256());
      const int64_t sum_x = _mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 1) + _mm256_extract_epi64(s, 2) +
                            _mm256_extract_epi64(s, 3) - kQK * 128;
      const __m512i sums = _mm512_sub_epi32(transpose_add4(part), _mm512_set1_epi32(static_cast<int32_t>(8 * sum_x)));
      const __m512 d = _mm512_mul_ps(dw, _mm512_set1_ps(h2f(x[t][i].d)));
      acc[t] = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAll, sums), d, acc[t]);
    }
  }
  const auto keep = static_cast<__mmask16>((1u << n_w) - 1u);
  for (int t = 0; t < NT; ++t) _mm512_mask_storeu_ps(Y + static_cast<size_t>(t) * y_stride, keep, acc[t]);
}

// From two tokens on; one token (decode) takes the AVX2 tile, which read 6 % faster from memory in
// llama-1b decode on a Zen 5 (the sixteen-row pass is 1.4× faster only with the weights in cache).
void tile16_q4_0(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride, int n_x,
                 float* Y, size_t y_stride) {
  if (n_x == 1) {
    tile_q4_0_avx2(n, W, w_stride, n_w, X, x_stride, n_x, Y, y_stride);
    return;
  }
  const auto* x = static_cast<const uint8_t*>(X);
  for (int r = 0; r < n_w; r += kQ40Rows) {
    const uint8_t* w = static_cast<const uint8_t*>(W) + static_cast<size_t>(r) * w_stride;
    const int rows = std::min(kQ40Rows, n_w - r);
    int t = 0;
    for (; t + kQ40Tokens <= n_x; t += kQ40Tokens)
      rows16_q4_0<kQ40Tokens>(n, w, w_stride, rows, x + static_cast<size_t>(t) * x_stride, x_stride,
                              Y + static_cast<size_t>(t) * y_stride + r, y_stride);
    for (; t < n_x; ++t)
      rows16_q4_0<1>(n, w, w_stride, rows, x + static_cast<size_t>(t) * x_stride, x_stride,
                     Y + static_cast<size_t>(t) * y_stride + r, y_stride);
  }
}

}  // namespace

void install_avx512(KernelTable& t) {
  install_vnni256_tile(t);
  t.tile[idx(TensorType::Q4_0)] = tile16_q4_0;
  install_avx512_panel(t, panel_read_ahead());
  install_avx512_dot_f16_lanes16(t);
}

}  // namespace a3s::power::kernels

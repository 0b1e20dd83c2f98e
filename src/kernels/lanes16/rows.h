#pragma once
// Included by exactly one source file per instruction set (avx2/dot_f16_lanes16.cpp,
// avx512/dot_f16_lanes16.cpp); the avx512 one defines A3S_LANES16_ZMM first. Everything here has
// internal linkage, so each file keeps its own copy, compiled for its own ISA.
//
// dot_f16_lanes16 (dot_f16_lanes16.h) for one row, and for many rows against one or several vectors.
// Each 16-lane accumulator of the reference is one 512-bit register (A3S_LANES16_ZMM) or two 256-bit
// ones; the per-lane operations and the reduction order are the scalar reference's either way, so
// both give its bits. The row version reduces four rows together (a 4×4 transpose in place of four
// horizontal sums), multiplies each group of four rows with every vector before the next group,
// converts a single vector to float once, and reads rows ahead of use.
#include "kernels/avx2/common.h"
#include "kernels/dot_f16_lanes16.h"
#include "kernels/f16_pages.h"

namespace a3s::power::kernels {
namespace {

using lanes16::kLanes;
using lanes16::kStep;

inline __m256 load_f16(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
#if defined(A3S_LANES16_ZMM)
inline __m512 load_f16x16(const uint16_t* p) {
  return _mm512_maskz_cvtph_ps(static_cast<__mmask16>(0xFFFF), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
#endif

// A row of x: at(k) points at element k (k a multiple of 8; the eight from there are contiguous).
struct FlatRow {
  const uint16_t* p;
  const uint16_t* at(int64_t k) const { return p + k; }
};
// A row in pages (f16_pages.h): a page holds 2^shift ≥ 16 elements of the row.
struct PagedRow {
  const uint16_t* const* blocks;
  int shift;
  int64_t mask, off;
  const uint16_t* at(int64_t k) const { return blocks[k >> shift] + off + (k & mask); }
};

// The eight F16 values from element k of a row of n elements as floats, those at n or beyond as
// zeros (never read).
template <typename Row>
inline __m256 load_f16_bounded(const Row& x, int64_t k, int64_t n) {
  if (k + 8 <= n) return load_f16(x.at(k));
  if (k >= n) return _mm256_setzero_ps();
  alignas(16) uint16_t b[8] = {};
  std::memcpy(b, x.at(k), static_cast<size_t>(n - k) * sizeof(uint16_t));
  return load_f16(b);
}
inline __m256 load_f16_bounded(const uint16_t* p, int64_t k, int64_t n) { return load_f16_bounded(FlatRow{p}, k, n); }
#if defined(A3S_LANES16_ZMM)
// The sixteen from element k (a multiple of 16: they lie in one page), as above.
template <typename Row>
inline __m512 load_f16x16_bounded(const Row& x, int64_t k, int64_t n) {
  if (k + 16 <= n) return load_f16x16(x.at(k));
  if (k >= n) return _mm512_setzero_ps();
  // A masked load: the elements from n on are neither read nor able to fault.
  const auto m = static_cast<__mmask16>((1u << (n - k)) - 1u);
  return _mm512_maskz_cvtph_ps(static_cast<__mmask16>(0xFFFF), _mm256_maskz_loadu_epi16(m, x.at(k)));
}
#endif

// The vector y, read as F16 (converted at each use) ...
struct YHalf {
  const uint16_t* p;
  __m256 at(int64_t k) const { return load_f16(p + k); }
  __m256 at_bounded(int64_t k, int64_t n) const { return load_f16_bounded(p, k, n); }
#if defined(A3S_LANES16_ZMM)
  __m512 at16(int64_t k) const { return load_f16x16(p + k); }
  __m512 at16_bounded(int64_t k, int64_t n) const { return load_f16x16_bounded(FlatRow{p}, k, n); }
#endif
};
// ... or converted once to float and zero-padded to whole steps, for many rows.
struct YFloat {
  const float* p;
  __m256 at(int64_t k) const { return _mm256_loadu_ps(p + k); }
  __m256 at_bounded(int64_t k, int64_t) const { return _mm256_loadu_ps(p + k); }
#if defined(A3S_LANES16_ZMM)
  __m512 at16(int64_t k) const { return _mm512_loadu_ps(p + k); }
  __m512 at16_bounded(int64_t k, int64_t) const { return _mm512_loadu_ps(p + k); }
#endif
};

// The vector steps of one row (elements below n_vec; n_full of them hold no padding), reduced to the
// eight sums hi[i] + lo[i]: the first step of hsum16. Padding is never read.
template <typename Row, typename Y>
inline __m256 row_lanes(const Row& x, const Y& y, int64_t n, int64_t n_full, int64_t n_vec) {
#if defined(A3S_LANES16_ZMM)
  __m512 a[4];
  for (auto& v : a) v = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i < n_full; i += kStep) {
    for (int j = 0; j < 4; ++j) a[j] = _mm512_fmadd_ps(load_f16x16(x.at(i + j * kLanes)), y.at16(i + j * kLanes), a[j]);
  }
  for (; i < n_vec; i += kStep) {  // steps that hold the end of the row and the zero padding
    for (int j = 0; j < 4; ++j) {
      const int64_t k = i + j * kLanes;
      a[j] = _mm512_fmadd_ps(load_f16x16_bounded(x, k, n), y.at16_bounded(k, n), a[j]);
    }
  }
  const __m512 v = _mm512_add_ps(_mm512_add_ps(a[0], a[2]), _mm512_add_ps(a[1], a[3]));
  // Lanes 8-15 plus lanes 0-7 (the zero-masked extracts: GCC 12 warns about the undefined source
  // register of the unmasked forms, which _mm512_castps512_ps256 uses too).
  const __m512d vd = _mm512_castps_pd(v);
  const auto all = static_cast<__mmask8>(0xF);
  return _mm256_add_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(all, vd, 1)),
                       _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(all, vd, 0)));
#else
  __m256 lo[4], hi[4];
  for (int j = 0; j < 4; ++j) lo[j] = hi[j] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i < n_full; i += kStep) {
    for (int j = 0; j < 4; ++j) {
      const int64_t k = i + j * kLanes;
      lo[j] = _mm256_fmadd_ps(load_f16(x.at(k)), y.at(k), lo[j]);
      hi[j] = _mm256_fmadd_ps(load_f16(x.at(k + 8)), y.at(k + 8), hi[j]);
    }
  }
  for (; i < n_vec; i += kStep) {  // steps that hold the end of the row and the zero padding
    for (int j = 0; j < 4; ++j) {
      const int64_t k = i + j * kLanes;
      lo[j] = _mm256_fmadd_ps(load_f16_bounded(x, k, n), y.at_bounded(k, n), lo[j]);
      hi[j] = _mm256_fmadd_ps(load_f16_bounded(x, k + 8, n), y.at_bounded(k + 8, n), hi[j]);
    }
  }
  const __m256 v_lo = _mm256_add_ps(_mm256_add_ps(lo[0], lo[2]), _mm256_add_ps(lo[1], lo[3]));
  const __m256 v_hi = _mm256_add_ps(_mm256_add_ps(hi[0], hi[2]), _mm256_add_ps(hi[1], hi[3]));
  return _mm256_add_ps(v_hi, v_lo);
#endif
}

// The elements from n_vec to n, one by one in double, after the vector part.
inline float finish(double sum, const uint16_t* x, const uint16_t* y, int64_t n_vec, int64_t n) {
  for (int64_t i = n_vec; i < n; ++i) sum += static_cast<double>(h2f(x[i]) * h2f(y[i]));
  return static_cast<float>(sum);
}

float dot_f16_lanes16_one(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded) {
  const int64_t n_vec = n_padded / kStep * kStep;
  const double sum = n_vec > 0 ? hsum(row_lanes(FlatRow{x}, YHalf{y}, n, n / kStep * kStep, n_vec)) : 0.0;
  return finish(sum, x, y, n_vec, n);
}

// Four rows at a time: a[k] = the four sums of hsum's first step for row r0 + k; transposed, lane k of
// (t0 + t2) + (t1 + t3) is hsum's (a0 + a2) + (a1 + a3) of that row. x is FlatRows or PagedRows:
// x.row(r) reads row r, x.prefetch(r, bytes) reads a later row ahead of use. Each group of four rows
// is multiplied with every vector ys[q] (y16[q] its F16 form, out[q] its results) before the next
// group, so the rows come from memory once for all the vectors.
template <typename Rows, typename Y>
void rows_four(const Rows& x, int64_t n_rows, const Y* ys, const uint16_t* const* y16, int n_y, int64_t n,
               int64_t n_vec, float* const* out) {
  constexpr int kRows = 4;
  const int64_t n_full = n / kStep * kStep;
  const size_t row_bytes = static_cast<size_t>(n) * sizeof(uint16_t);
  for (int64_t r0 = 0; r0 < n_rows; r0 += kRows) {
    const int m = n_rows - r0 < kRows ? static_cast<int>(n_rows - r0) : kRows;
    for (int k = 0; k < m; ++k)
      if (r0 + k + kRows < n_rows) x.prefetch(r0 + k + kRows, row_bytes);
    for (int q = 0; q < n_y; ++q) {
      alignas(16) float vec_part[kRows] = {};
      if (n_vec > 0) {
        __m128 a[kRows];
        for (int k = 0; k < kRows; ++k) {
          if (k < m) {
            const __m256 u = row_lanes(x.row(r0 + k), ys[q], n, n_full, n_vec);
            a[k] = _mm_add_ps(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1));
          } else {
            a[k] = _mm_setzero_ps();
          }
        }
        _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
        _mm_store_ps(vec_part, _mm_add_ps(_mm_add_ps(a[0], a[2]), _mm_add_ps(a[1], a[3])));
      }
      // The elements from n_vec to n, one by one in double per row: lane k of `sum` is row r0 + k's
      // chain, and each step adds element e's four products (a 4×8 transpose), so every lane makes
      // the scalar reference's double additions in its order.
      __m256d sum = _mm256_cvtps_pd(_mm_load_ps(vec_part));
      for (int64_t i = n_vec; i < n; i += 8) {
        const __m256 yv = load_f16_bounded(y16[q], i, n);
        __m256 p[kRows];
        for (int k = 0; k < kRows; ++k)
          p[k] = k < m ? _mm256_mul_ps(load_f16_bounded(x.row(r0 + k), i, n), yv) : _mm256_setzero_ps();
        __m128 lo[kRows], hi[kRows];  // elements 0-3 and 4-7 of each row
        for (int k = 0; k < kRows; ++k) {
          lo[k] = _mm256_castps256_ps128(p[k]);
          hi[k] = _mm256_extractf128_ps(p[k], 1);
        }
        _MM_TRANSPOSE4_PS(lo[0], lo[1], lo[2], lo[3]);  // lo[e]: element e of the four rows
        _MM_TRANSPOSE4_PS(hi[0], hi[1], hi[2], hi[3]);
        const int c = n - i < 8 ? static_cast<int>(n - i) : 8;
        for (int e = 0; e < c; ++e) sum = _mm256_add_pd(sum, _mm256_cvtps_pd(e < 4 ? lo[e] : hi[e - 4]));
      }
      alignas(32) double total[kRows];
      _mm256_store_pd(total, sum);
      for (int k = 0; k < m; ++k) out[q][r0 + k] = static_cast<float>(total[k]);
    }
  }
}

// Contiguous rows `stride` apart, read ahead; rows in pages, not read ahead (a row spans pages).
struct FlatRows {
  const uint16_t* x;
  int64_t stride;
  FlatRow row(int64_t r) const { return {x + r * stride}; }
  void prefetch(int64_t r, size_t bytes) const { prefetch_span(x + r * stride, bytes); }
};
struct PagedRows {
  const F16Pages& p;
  PagedRow row(int64_t r) const {
    return {p.blocks, p.log2_block, (int64_t{1} << p.log2_block) - 1, p.offset + r * p.row_stride};
  }
  void prefetch(int64_t, size_t) const {}
};

// One vector is converted to float once (on the stack) when its vector steps fit in kFloatY
// elements; several are read as F16 (converted at each use, in groups of kVectors).
constexpr int64_t kFloatY = 4096;
constexpr int kVectors = 8;

template <typename Rows>
void rows_dispatch(const Rows& x, int64_t n_rows, const uint16_t* const* y, int n_y, int64_t n, int64_t n_padded,
                   float* const* out) {
  const int64_t n_vec = n_padded / kStep * kStep;
  if (n_y > 1 || n_vec > kFloatY || n_rows < 2) {
    for (int q0 = 0; q0 < n_y; q0 += kVectors) {
      const int k = n_y - q0 < kVectors ? n_y - q0 : kVectors;
      YHalf ys[kVectors];
      for (int q = 0; q < k; ++q) ys[q] = YHalf{y[q0 + q]};
      rows_four(x, n_rows, ys, y + q0, k, n, n_vec, out + q0);
    }
    return;
  }
  alignas(32) float yf[kFloatY];
  const int64_t n_real = n < n_vec ? n : n_vec;
  int64_t i = 0;
  for (; i + 8 <= n_real; i += 8) _mm256_store_ps(yf + i, load_f16(y[0] + i));
  for (; i < n_real; ++i) yf[i] = h2f(y[0][i]);
  for (; i < n_vec; ++i) yf[i] = 0.0f;
  const YFloat one{yf};
  rows_four(x, n_rows, &one, y, 1, n, n_vec, out);
}

void dot_f16_lanes16_many(const F16Pages& x, int64_t n_rows, const uint16_t* const* y, int n_y, int64_t n,
                          int64_t n_padded, float* const* out) {
  // One page as long as the rows: contiguous rows (dot_f16_lanes16_rows), read ahead.
  if (x.log2_block >= 62 || (int64_t{1} << x.log2_block) >= n_padded) {
    rows_dispatch(FlatRows{x.blocks[0] + x.offset, x.row_stride}, n_rows, y, n_y, n, n_padded, out);
    return;
  }
  rows_dispatch(PagedRows{x}, n_rows, y, n_y, n, n_padded, out);
}

}  // namespace

}  // namespace a3s::power::kernels

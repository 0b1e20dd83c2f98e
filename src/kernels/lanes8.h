// The 8-lane arithmetic of the AVX2 dot products (avx2/vec_dot.cpp, avx2/tile.cpp) in plain C++, for
// the scalar reference (ref/vec_dot.cpp). Both paths perform the same float operations in the same
// order, so every ISA path returns the same bits and the scalar code is the definition.
//
// Lanes. The AVX2 kernels multiply a 32-byte quant vector with a 32-byte activation vector and pair
// the products (maddubs, then madd): int32 lane j holds the sum of the products of bytes 4j..4j+3.
// Integer sums are exact on both paths; what must match is which products meet in which lane,
// because each lane is scaled and accumulated in float on its own (one FMA per lane and block), and
// the lanes are then summed in the order of `hsum` (avx2/common.h). Float rows use the same lanes:
// element i of an 8-element step goes to lane i.
#pragma once

#include <cmath>
#include <cstdint>

namespace a3s::power::kernels::lanes8 {

inline constexpr int kLanes = 8;

// The int32 lanes of the products p[0..n) (n a multiple of 32) taken as 32-byte vectors and added
// up: s[l] = Σ_c p[32c + 4l] + p[32c + 4l + 1] + p[32c + 4l + 2] + p[32c + 4l + 3].
inline void int_lanes(const int32_t* p, int n, int32_t* s) {
  for (int l = 0; l < kLanes; ++l) s[l] = 0;
  for (int c = 0; c < n; c += 32) {
    for (int l = 0; l < kLanes; ++l)
      s[l] += p[c + 4 * l] + p[c + 4 * l + 1] + p[c + 4 * l + 2] + p[c + 4 * l + 3];
  }
}

// Σ of 8 floats in the order of hsum (avx2/common.h): upper half onto lower half, then the two
// pairs of the four, then the two.
inline float hsum(const float* v) {
  float q[4];
  for (int l = 0; l < 4; ++l) q[l] = v[l] + v[l + 4];
  return (q[0] + q[2]) + (q[1] + q[3]);
}

// One 8-lane float accumulator (a __m256).
struct Acc {
  float v[kLanes] = {};

  // v[l] += d · s[l] with one rounding: _mm256_fmadd_ps(set1(d), cvtepi32_ps(s), v).
  void fma_int(float d, const int32_t* s) {
    for (int l = 0; l < kLanes; ++l) v[l] = std::fma(d, static_cast<float>(s[l]), v[l]);
  }
  // v[l] += a[l] · b[l] with one rounding: _mm256_fmadd_ps(a, b, v).
  void fma(const float* a, const float* b) {
    for (int l = 0; l < kLanes; ++l) v[l] = std::fma(a[l], b[l], v[l]);
  }
  float sum() const { return hsum(v); }
};

}  // namespace a3s::power::kernels::lanes8

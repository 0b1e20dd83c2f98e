// BF16 dot products in the order of llama.cpp's CPU backend on x86 with AVX512-BF16 (the build its
// reference outputs come from), in plain C++: the scalar reference (ref/vec_dot.cpp) and the AVX2 path
// (avx2/bf16_pairs.cpp) perform exactly these float operations in this order, so both return these
// bits.
//
// VDPBF16PS (Intel ISE reference, "Dot Product of BF16 Pairs Accumulated into Packed Single
// Precision"): a 512-bit step over 32 BF16 values has 16 fp32 lanes; lane j adds the product of
// elements 2j+1 first, then that of element 2j, each with one FMA (RNE). A product of two BF16 values
// is exact in fp32, so each step is two correctly rounded additions. The 16 lanes are summed as
// GCC's _mm512_reduce_add_ps does: lanes j and j+8 first, then the 8-lane order of lanes8::hsum.
//
//   one token (llama.cpp ggml_vec_dot_bf16): two accumulators over 64-element steps (the first 32
//     values into the first, the next 32 into the second), each reduced, the two sums and then the
//     remaining n % 64 products (rounded to float) added in double.
//   two or more tokens (llama.cpp's prompt-processing GEMM, tinyBLAS<32, __m512bh>): one accumulator
//     over 32-element steps, reduced; rows whose length is not a multiple of 32 take the one-token
//     order (that GEMM declines them).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/lanes8.h"

namespace a3s::power::kernels::bf16_pairs {

inline constexpr int kLanes = 16;
inline constexpr int kStep = 32;  // BF16 values per VDPBF16PS step

inline float widen(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One 512-bit accumulator.
struct Acc16 {
  float v[kLanes] = {};

  // One VDPBF16PS step over w[0..32) and x[0..32).
  void step(const uint16_t* w, const uint16_t* x) {
    for (int j = 0; j < kLanes; ++j) {
      v[j] = std::fma(widen(w[2 * j + 1]), widen(x[2 * j + 1]), v[j]);
      v[j] = std::fma(widen(w[2 * j]), widen(x[2 * j]), v[j]);
    }
  }
  // _mm512_reduce_add_ps (GCC): fold the upper 8 lanes onto the lower 8, then lanes8::hsum.
  float reduce() const {
    float s[8];
    for (int j = 0; j < 8; ++j) s[j] = v[j + 8] + v[j];
    return lanes8::hsum(s);
  }
};

inline float dot_one_token(int64_t n, const uint16_t* w, const uint16_t* x) {
  Acc16 c1, c2;
  int64_t i = 0;
  for (; i + 2 * kStep <= n; i += 2 * kStep) {
    c1.step(w + i, x + i);
    c2.step(w + i + kStep, x + i + kStep);
  }
  double sum = 0.0;
  sum += static_cast<double>(c1.reduce());
  sum += static_cast<double>(c2.reduce());
  for (; i < n; ++i) sum += static_cast<double>(widen(w[i]) * widen(x[i]));
  return static_cast<float>(sum);
}

inline float dot_batch(int64_t n, const uint16_t* w, const uint16_t* x) {
  if (n % kStep != 0) return dot_one_token(n, w, x);
  Acc16 c;
  for (int64_t i = 0; i < n; i += kStep) c.step(w + i, x + i);
  return c.reduce();
}

}  // namespace a3s::power::kernels::bf16_pairs

// The F16 · F16 dot product of attention (K·q and V·p) in the summation order of llama.cpp's
// AVX-512 ggml_vec_dot_f16, the build behind the reference outputs: 64-element steps into four
// 16-lane float accumulators (one FMA per element), the four combined as (a0 + a2) + (a1 + a3), the
// 16 lanes summed by halves / quarters / pairs, then the remaining elements added one by one in double.
// Elements n ≤ i < n_padded count as zeros: llama.cpp includes the masked KV positions up to a
// multiple of 32. The AVX2 version emulates each 16-lane register with two 8-lane ones.
#pragma once

#include <cstdint>

namespace a3s::power::kernels::lanes16 {

inline constexpr int64_t kLanes = 16;
inline constexpr int64_t kStep = 64;

// Σ of 16 floats in the order of a 512-bit horizontal add.
inline float hsum16(const float* v) {
  float h[8], q[4];
  for (int i = 0; i < 8; ++i) h[i] = v[i + 8] + v[i];
  for (int i = 0; i < 4; ++i) q[i] = h[i + 4] + h[i];
  return (q[0] + q[2]) + (q[1] + q[3]);
}

}  // namespace a3s::power::kernels::lanes16

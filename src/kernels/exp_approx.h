// exp(x) by range reduction and a degree-5 polynomial, the approximation that llama.cpp's CPU
// backend uses for its vectorised soft_max and SiLU (Arm optimized-routines' single-precision exp,
// in the form of ggml's AVX-512 path). The engine uses it where llama.cpp does, so that attention
// probabilities and SiLU outputs agree with the reference bit for bit; std::exp differs in the last
// bit often enough to flip a quantized activation and change a greedy token.
//
//   x = k·ln2 + b, k = round(x·log2 e), |b| ≤ ln2/2 (ln2 split hi + lo for an exact reduction)
//   exp(x) = p(b) · 2^k, p(b) = 1 + c1·b + c2·b² + … + c5·b⁵ (Estrin form, FMA at every step)
// with p(b) · 2^k rounded once (AVX-512 VSCALEFPS semantics: subnormal results rounded to nearest
// even). |k| > 192 → 0 for x < 0, +inf for x > 0; NaN → NaN. Maximum error ≈ 1.5 ULP.
// Every ISA computes the same bits as this scalar reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace a3s::power::kernels::exp_approx {

inline constexpr float kShift = 0x1.8p23f;  // 1.5·2^23: adding it rounds to an integer
inline constexpr float kLog2e = 0x1.715476p+0f;
inline constexpr float kLn2Hi = 0x1.62e4p-1f;
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
inline constexpr float kC1 = 0x1.ffffecp-1f;
inline constexpr float kC2 = 0x1.fffdb6p-2f;
inline constexpr float kC3 = 0x1.555e66p-3f;
inline constexpr float kC4 = 0x1.573e2ep-5f;
inline constexpr float kC5 = 0x1.0e4020p-7f;
inline constexpr float kMaxK = 192.0f;  // beyond: the result is 0 or +inf

// 2^k for -126 ≤ k ≤ 127.
inline float pow2(int32_t k) {
  const uint32_t bits = static_cast<uint32_t>(k + 127) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float exp(float x) {
  const float z = std::fma(x, kLog2e, kShift);
  const float k = z - kShift;
  if (!(std::fabs(k) <= kMaxK)) {
    if (std::isnan(k)) return k;
    return k > 0 ? std::numeric_limits<float>::infinity() : 0.0f;
  }
  const float b = std::fma(-k, kLn2Lo, std::fma(-k, kLn2Hi, x));
  const float u = b * b;
  const float p =
      std::fma(std::fma(std::fma(kC5, b, kC4), u, std::fma(kC3, b, kC2)), u, std::fma(kC1, b, 1.0f));
  // p · 2^k with one rounding: p · 2^k1 is exact (|k1| ≤ 96 keeps it normal), · 2^k2 rounds.
  const auto ki = static_cast<int32_t>(k);
  const int32_t k1 = ki >> 1;  // floor(k / 2)
  return (p * pow2(k1)) * pow2(ki - k1);
}

}  // namespace a3s::power::kernels::exp_approx

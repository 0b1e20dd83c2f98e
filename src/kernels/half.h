// Inline IEEE binary16 and bfloat16 conversions shared by every kernel file (the public, out-of-line
// versions are in kernels.h). Pure integer code: results do not depend on the floating-point
// environment (flush-to-zero, rounding mode) or on the instruction set.
//
// Rounding matches ggml: fp32→fp16 and fp32→bf16 round to nearest, ties to even; fp32 NaN inputs
// produce fp16 sign | 0x7E00 and keep their upper bits with the quiet bit set in bf16; fp16 NaN inputs
// become quiet fp32 NaNs with the payload kept.
#pragma once

#include <bit>
#include <cstdint>

namespace a3s::power::kernels::half {

inline float fp16_to_fp32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    // inf, or NaN with its payload made quiet (what a float operation on it yields, as in ggml and F16C)
    bits = sign | 0x7F800000u | (mant << 13) | (mant != 0 ? 0x400000u : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);  // normal: rebias 15 → 127
  } else if (mant == 0) {
    bits = sign;  // ±0
  } else {
    // Subnormal half: value = mant · 2^-24. Normalise into a binary32 normal.
    uint32_t e = 113;  // exponent of 2^-14 in binary32 bias, decremented while shifting
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mant & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t fp32_to_fp16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);   // NaN
  if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // ≥ 65520 rounds to inf
  const int32_t exp = static_cast<int32_t>(ax >> 23) - 127;
  if (exp >= -14) {
    // Normal half: keep 10 mantissa bits, round the 13 dropped bits to nearest even.
    const uint32_t m = ax & 0x7FFFFFu;
    uint32_t h = (static_cast<uint32_t>(exp + 15) << 10) | (m >> 13);
    const uint32_t rest = m & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carry may bump the exponent: fine
    return static_cast<uint16_t>(sign | h);
  }
  if (exp < -25) return sign;  // below half the smallest subnormal (2^-25): rounds to zero
  // Subnormal half: value / 2^-24 with round to nearest even. The significand with its implicit
  // bit is 24 bits wide; shift so that bit 0 of the result weighs 2^-24.
  const uint32_t m = (ax & 0x7FFFFFu) | 0x800000u;
  const int shift = -exp - 1;  // exp = -15 → 14 ... exp = -25 → 24
  uint32_t h = m >> shift;
  const uint32_t rest = m & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h;  // may become the smallest normal: fine
  return static_cast<uint16_t>(sign | h);
}

inline float bf16_to_fp32(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

inline uint16_t fp32_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace a3s::power::kernels::half

// Integer rounding helpers with the exact semantics the ggml quantizers rely on.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace a3s::power::kernels {

// Round to nearest, ties to even, for |v| < 2^22 (the rounding of ggml's `nearest_int`). Adding
// 1.5·2^23 puts the integer part in the low mantissa bits; the result does not depend on the current
// rounding mode of the FPU being anything but the default.
inline int round_half_even(float v) {
  const float shifted = v + 12582912.0f;  // 1.5 · 2^23
  const int32_t bits = std::bit_cast<int32_t>(shifted);
  return (bits & 0x007FFFFF) - 0x00400000;
}

// Round to nearest, ties away from zero (C `roundf`), as an int.
inline int round_half_away(float v) {
  return static_cast<int>(std::round(v));
}

}  // namespace a3s::power::kernels

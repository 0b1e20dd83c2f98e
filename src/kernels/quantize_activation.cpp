// Scalar quantizers for activation rows: F32, F16, BF16, Q8_0, Q8_1, Q8_K. Bit-exact with llama.cpp's
// reference quantizers (`quantize_row_q8_0_ref`, `quantize_row_q8_1_ref`, `quantize_row_q8_K_ref` in
// ggml-quants.c), including their rounding: Q8_0/Q8_1 use roundf (ties away from zero) on x·(1/d)
// with d = amax/127, Q8_K uses round-half-even on x·(-127/max) where max is the signed value of
// largest magnitude.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/rounding.h"
#include "kernels/scalar_install.h"

namespace a3s::power::kernels {
namespace {

void quant_f32(const float* x, void* dst, int64_t n) {
  std::memcpy(dst, x, static_cast<size_t>(n) * 4);
}

void quant_f16(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = half::fp32_to_fp16(x[i]);
}

void quant_bf16(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) y[i] = half::fp32_to_bf16(x[i]);
}

// Scale of a Q8_0 / Q8_1 block: d = amax / 127 and its inverse (0 for an all-zero block).
inline void q8_scale(const float* x, float* d, float* id) {
  float amax = 0.0f;
  for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
  *d = amax / 127.0f;
  *id = *d != 0.0f ? 1.0f / *d : 0.0f;
}

void quant_q8_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_0*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id;
    q8_scale(x, &d, &id);
    y[i].d = half::fp32_to_fp16(d);
    for (int j = 0; j < kQK; ++j) y[i].qs[j] = static_cast<int8_t>(round_half_away(x[j] * id));
  }
}

void quant_q8_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_1*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float d, id;
    q8_scale(x, &d, &id);
    y[i].d = half::fp32_to_fp16(d);
    int sum = 0;
    for (int j = 0; j < kQK; ++j) {
      y[i].qs[j] = static_cast<int8_t>(round_half_away(x[j] * id));
      sum += y[i].qs[j];
    }
    y[i].s = half::fp32_to_fp16(static_cast<float>(sum) * d);
  }
}

void quant_q8_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < kQKK; ++j) {
      const float a = std::fabs(x[j]);
      if (a > amax) {
        amax = a;
        max = x[j];
      }
    }
    if (amax == 0.0f) {
      std::memset(&y[i], 0, sizeof(BlockQ8_K));
      continue;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < kQKK; ++j)
      y[i].qs[j] = static_cast<int8_t>(std::min(127, round_half_even(iscale * x[j])));
    for (int g = 0; g < kQKK / 16; ++g) {
      int sum = 0;
      for (int l = 0; l < 16; ++l) sum += y[i].qs[16 * g + l];
      y[i].bsums[g] = static_cast<int16_t>(sum);
    }
    y[i].d = 1.0f / iscale;
  }
}

}  // namespace

void install_scalar_quantize_activation(KernelTable& t) {
  t.quantize[slot(TensorType::F32)] = quant_f32;
  t.quantize[slot(TensorType::F16)] = quant_f16;
  t.quantize[slot(TensorType::BF16)] = quant_bf16;
  t.quantize[slot(TensorType::Q8_0)] = quant_q8_0;
  t.quantize[slot(TensorType::Q8_1)] = quant_q8_1;
  t.quantize[slot(TensorType::Q8_K)] = quant_q8_k;
}

}  // namespace a3s::power::kernels

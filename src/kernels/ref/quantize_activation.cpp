// Scalar quantizers for activation rows: F32, F16, BF16, Q8_0, Q8_1, Q8_K. Bit-exact with llama.cpp's
// reference quantizers (`quantize_row_q8_0_ref`, `quantize_row_q8_1_ref`, `quantize_row_q8_K_ref` in
// ggml-quants.c), including their rounding: Q8_0/Q8_1 use roundf (ties away from zero) on x·(1/d)
// with d = amax/127, Q8_K uses round-half-even on x·(-127/max) where max is the signed value of
// largest magnitude. The Q8_0/Q8_1 variant of llama.cpp's x86 CPU backend (Q8Rounding::CpuBackend)
// multiplies by 127/amax and rounds half to even.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/rounding.h"
#include "kernels/ref/install.h"

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

// llama.cpp's x86 CPU backend rule: id = 127/amax, round half to even; d = amax/127 as above.
template <bool kWithSum>
void quant_q8_backend(const float* x, void* dst, int64_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  const size_t block_bytes = kWithSum ? sizeof(BlockQ8_1) : sizeof(BlockQ8_0);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK, out += block_bytes) {
    float amax = 0.0f;
    for (int j = 0; j < kQK; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    int8_t* qs = reinterpret_cast<int8_t*>(out + (kWithSum ? 4 : 2));
    int sum = 0;
    for (int j = 0; j < kQK; ++j) {
      qs[j] = static_cast<int8_t>(round_half_even(x[j] * id));
      sum += qs[j];
    }
    const uint16_t dh = half::fp32_to_fp16(d);
    std::memcpy(out, &dh, 2);
    if constexpr (kWithSum) {
      const uint16_t sh = half::fp32_to_fp16(d * static_cast<float>(sum));
      std::memcpy(out + 2, &sh, 2);
    }
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
  t.quantize_backend[slot(TensorType::Q8_0)] = quant_q8_backend<false>;
  t.quantize_backend[slot(TensorType::Q8_1)] = quant_q8_backend<true>;
}

}  // namespace a3s::power::kernels

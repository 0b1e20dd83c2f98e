// Scalar fp16 / bf16 row conversions and the public single-value conversions.
#include "kernels/half.h"
#include "kernels/kernels.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

void fp16_to_fp32_row_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half::fp16_to_fp32(src[i]);
}
void fp32_to_fp16_row_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half::fp32_to_fp16(src[i]);
}
void bf16_to_fp32_row_scalar(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half::bf16_to_fp32(src[i]);
}
void fp32_to_bf16_row_scalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = half::fp32_to_bf16(src[i]);
}

}  // namespace

void install_scalar_half(KernelTable& t) {
  t.fp16_to_fp32_row = fp16_to_fp32_row_scalar;
  t.fp32_to_fp16_row = fp32_to_fp16_row_scalar;
  t.bf16_to_fp32_row = bf16_to_fp32_row_scalar;
  t.fp32_to_bf16_row = fp32_to_bf16_row_scalar;
}

float fp16_to_fp32(uint16_t h) {
  return half::fp16_to_fp32(h);
}
uint16_t fp32_to_fp16(float f) {
  return half::fp32_to_fp16(f);
}
float bf16_to_fp32(uint16_t b) {
  return half::bf16_to_fp32(b);
}
uint16_t fp32_to_bf16(float f) {
  return half::fp32_to_bf16(f);
}

void fp16_to_fp32_row(const uint16_t* src, float* dst, int64_t n) {
  if (n > 0) active_table().fp16_to_fp32_row(src, dst, n);
}
void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n) {
  if (n > 0) active_table().fp32_to_fp16_row(src, dst, n);
}
void bf16_to_fp32_row(const uint16_t* src, float* dst, int64_t n) {
  if (n > 0) active_table().bf16_to_fp32_row(src, dst, n);
}
void fp32_to_bf16_row(const float* src, uint16_t* dst, int64_t n) {
  if (n > 0) active_table().fp32_to_bf16_row(src, dst, n);
}

}  // namespace a3s::power::kernels

// AVX2 + FMA BF16 dot products with the exact arithmetic of bf16_pairs.h: a 16-lane accumulator is
// two __m256 (lanes 0-7 from values 0-15 of a 32-value step, lanes 8-15 from values 16-31). Each
// 32-bit word holds a pair: its high half is the odd element (masked), its low half the even one
// (shifted up), so the odd product is added before the even one, as VDPBF16PS does.
#include "kernels/avx2/common.h"

namespace a3s::power::kernels {
namespace {

struct Acc16 {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
};

inline void pairs8(__m256& acc, const uint16_t* w, const uint16_t* x) {
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  acc = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(a, high)),
                        _mm256_castsi256_ps(_mm256_and_si256(b, high)), acc);
  acc = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(a, 16)), _mm256_castsi256_ps(_mm256_slli_epi32(b, 16)),
                        acc);
}

inline void step(Acc16& c, const uint16_t* w, const uint16_t* x) {
  pairs8(c.lo, w, x);
  pairs8(c.hi, w + 16, x + 16);
}

inline float reduce(const Acc16& c) {
  return hsum(_mm256_add_ps(c.hi, c.lo));
}

inline float widen(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float one_token(int64_t n, const uint16_t* w, const uint16_t* x) {
  Acc16 c1, c2;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    step(c1, w + i, x + i);
    step(c2, w + i + 32, x + i + 32);
  }
  double sum = 0.0;
  sum += static_cast<double>(reduce(c1));
  sum += static_cast<double>(reduce(c2));
  for (; i < n; ++i) sum += static_cast<double>(widen(w[i]) * widen(x[i]));
  return static_cast<float>(sum);
}

void dot_bf16(int64_t n, float* out, const void* w, const void* x) {
  *out = one_token(n, static_cast<const uint16_t*>(w), static_cast<const uint16_t*>(x));
}

void dot_bf16_batch(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const uint16_t*>(w);
  const auto* b = static_cast<const uint16_t*>(x);
  if (n % 32 != 0) {
    *out = one_token(n, a, b);
    return;
  }
  Acc16 c;
  for (int64_t i = 0; i < n; i += 32) step(c, a + i, b + i);
  *out = reduce(c);
}

}  // namespace

void install_avx2_bf16(KernelTable& t) {
  t.vec_dot[idx(TensorType::BF16)] = dot_bf16;
  t.vec_dot_batch[idx(TensorType::BF16)] = dot_bf16_batch;
}

}  // namespace a3s::power::kernels

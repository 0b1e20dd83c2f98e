// AVX2 + F16C conversions: fp16/bf16 rows and the activation quantizers F16, BF16, Q8_0, Q8_1, Q8_K.
// All bit-exact with the scalar reference (same products, same rounding rules, NaN handling as ggml).
#include "kernels/avx2/common.h"

namespace a3s::power::kernels {
namespace {

inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// fp32 → fp16 like the scalar path: hardware round-to-nearest-even, NaN → sign | 0x7E00.
inline uint16_t f2h(float f) {
  if (f != f) return static_cast<uint16_t>(((float_bits(f) >> 16) & 0x8000u) | 0x7E00u);
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

void fp16_to_fp32_row(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(load128(src + i)));
  for (; i < n; ++i) dst[i] = h2f(src[i]);
}

void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    const int nan = _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    if (nan != 0) {
      for (int k = 0; k < 8; ++k) {
        if (nan & (1 << k)) dst[i + k] = f2h(src[i + k]);
      }
    }
  }
  for (; i < n; ++i) dst[i] = f2h(src[i]);
}

void bf16_to_fp32_row(const uint16_t* src, float* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(load128(src + i)), 16);
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(w));
  }
  for (; i < n; ++i) {
    const uint32_t b = static_cast<uint32_t>(src[i]) << 16;
    std::memcpy(dst + i, &b, 4);
  }
}

inline uint16_t f2bf(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

void fp32_to_bf16_row(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  const __m256i bias = _mm256_set1_epi32(0x7FFF);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(src + i);
    const __m256i x = _mm256_castps_si256(v);
    const __m256i upper = _mm256_srli_epi32(x, 16);
    const __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(bias, _mm256_and_si256(upper, one))), 16);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(upper, quiet), nan);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), _MM_SHUFFLE(3, 1, 2, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_castsi256_si128(packed));
  }
  for (; i < n; ++i) dst[i] = f2bf(src[i]);
}

void quant_f16(const float* x, void* dst, int64_t n) {
  fp32_to_fp16_row(x, static_cast<uint16_t*>(dst), n);
}
void quant_bf16(const float* x, void* dst, int64_t n) {
  fp32_to_bf16_row(x, static_cast<uint16_t*>(dst), n);
}

inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

// Packs 4 × 8 int32 (each in [-128, 127]) into 32 int8 in element order.
inline __m256i pack_i8(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_packs_epi32(a, b);
  const __m256i cd = _mm256_packs_epi32(c, d);
  const __m256i bytes = _mm256_packs_epi16(ab, cd);
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// roundf: to nearest, ties away from zero (exact: trunc, then step away when |fraction| ≥ 0.5).
inline __m256i round_away(__m256 v) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 frac = _mm256_andnot_ps(sign, _mm256_sub_ps(v, t));
  const __m256 step = _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, sign));
  const __m256 up = _mm256_and_ps(_mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ), step);
  return _mm256_cvtps_epi32(_mm256_add_ps(t, up));
}

// Quantizes one 32-element block like quantize_row_q8_0_ref (kBackend: like llama.cpp's x86 CPU
// backend, id = 127/amax and round half to even); returns Σq and the float scale d.
template <bool kBackend = false>
inline int q8_block(const float* x, uint16_t* d_out, int8_t* qs, float* d_float) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8);
  const __m256 v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
  const __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, v0), _mm256_andnot_ps(sign, v1)),
                                 _mm256_max_ps(_mm256_andnot_ps(sign, v2), _mm256_andnot_ps(sign, v3)));
  const float amax = hmax(m);
  const float d = amax / 127.0f;
  float id;
  if constexpr (kBackend) {
    id = amax != 0.0f ? 127.0f / amax : 0.0f;
  } else {
    id = d != 0.0f ? 1.0f / d : 0.0f;
  }
  *d_out = f2h(d);
  *d_float = d;
  const __m256 vid = _mm256_set1_ps(id);
  const auto rnd = [](__m256 v) {
    if constexpr (kBackend) {
      return _mm256_cvtps_epi32(_mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else {
      return round_away(v);
    }
  };
  const __m256i i0 = rnd(_mm256_mul_ps(v0, vid));
  const __m256i i1 = rnd(_mm256_mul_ps(v1, vid));
  const __m256i i2 = rnd(_mm256_mul_ps(v2, vid));
  const __m256i i3 = rnd(_mm256_mul_ps(v3, vid));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs), pack_i8(i0, i1, i2, i3));
  return hsum_i32(_mm256_add_epi32(_mm256_add_epi32(i0, i1), _mm256_add_epi32(i2, i3)));
}

void quant_q8_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_0*>(dst);
  float d;
  for (int64_t i = 0; i < n / kQK; ++i) q8_block(x + i * kQK, &y[i].d, y[i].qs, &d);
}

void quant_q8_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_1*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i) {
    float d;
    const int sum = q8_block(x + i * kQK, &y[i].d, y[i].qs, &d);
    y[i].s = f2h(static_cast<float>(sum) * d);
  }
}

void quant_q8_0_backend(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_0*>(dst);
  float d;
  for (int64_t i = 0; i < n / kQK; ++i) q8_block<true>(x + i * kQK, &y[i].d, y[i].qs, &d);
}

void quant_q8_1_backend(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_1*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i) {
    float d;
    const int sum = q8_block<true>(x + i * kQK, &y[i].d, y[i].qs, &d);
    y[i].s = f2h(d * static_cast<float>(sum));
  }
}

void quant_q8_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ8_K*>(dst);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    __m256 m = _mm256_setzero_ps();
    for (int j = 0; j < kQKK; j += 8) m = _mm256_max_ps(m, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + j)));
    const float amax = hmax(m);
    if (amax == 0.0f) {
      std::memset(&y[i], 0, sizeof(BlockQ8_K));
      continue;
    }
    float max = 0.0f;  // the first value of largest magnitude, with its sign (as the scalar scan)
    for (int j = 0; j < kQKK; ++j) {
      if ((float_bits(x[j]) & 0x7FFFFFFFu) == float_bits(amax)) {
        max = x[j];
        break;
      }
    }
    const float iscale = -127.0f / max;
    const __m256 vs = _mm256_set1_ps(iscale);
    const __m256i cap = _mm256_set1_epi32(127);
    for (int g = 0; g < kQKK; g += 32) {
      __m256i q[4];
      for (int k = 0; k < 4; ++k) {
        const __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + g + 8 * k), vs),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        q[k] = _mm256_min_epi32(_mm256_cvtps_epi32(r), cap);
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y[i].qs + g), pack_i8(q[0], q[1], q[2], q[3]));
      y[i].bsums[g / 16] = static_cast<int16_t>(hsum_i32(_mm256_add_epi32(q[0], q[1])));
      y[i].bsums[g / 16 + 1] = static_cast<int16_t>(hsum_i32(_mm256_add_epi32(q[2], q[3])));
    }
    y[i].d = 1.0f / iscale;
  }
}

}  // namespace

void install_avx2_convert(KernelTable& t) {
  t.fp16_to_fp32_row = fp16_to_fp32_row;
  t.fp32_to_fp16_row = fp32_to_fp16_row;
  t.bf16_to_fp32_row = bf16_to_fp32_row;
  t.fp32_to_bf16_row = fp32_to_bf16_row;
  t.quantize[idx(TensorType::F16)] = quant_f16;
  t.quantize[idx(TensorType::BF16)] = quant_bf16;
  t.quantize[idx(TensorType::Q8_0)] = quant_q8_0;
  t.quantize[idx(TensorType::Q8_1)] = quant_q8_1;
  t.quantize[idx(TensorType::Q8_K)] = quant_q8_k;
  t.quantize_backend[idx(TensorType::Q8_0)] = quant_q8_0_backend;
  t.quantize_backend[idx(TensorType::Q8_1)] = quant_q8_1_backend;
}

}  // namespace a3s::power::kernels

// Reference quantizers from float to the weight formats Q4_0, Q4_1, Q5_0, Q5_1 and Q2_K..Q6_K.
//
// The 32-element formats use the canonical rounding of the format (scale from the extreme value,
// round to nearest). The K-quants search a few candidate scales per sub-block, refit scale (and min)
// by weighted least squares on the chosen integer levels, quantize the sub-block scales to the
// format's 4/6/8-bit codes, and finally requantize every value with the stored (fp16-rounded) scales
// so the block decodes to the closest representable values. Output is valid ggml data; it is meant
// for tests and synthesized models, not to reproduce llama-quantize byte for byte.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/rounding.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

using half::fp16_to_fp32;
using half::fp32_to_fp16;

// Value of largest magnitude (with its sign) among n floats; 0 for an all-zero group.
inline float signed_absmax(const float* x, int n) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  return max;
}

inline int clampi(int v, int lo, int hi) {
  return std::min(hi, std::max(lo, v));
}

// round(v) clamped to [lo, hi]; clamps before rounding so huge or non-finite v cannot overflow.
inline int quant_level(float v, int lo, int hi) {
  const float c = std::min(static_cast<float>(hi), std::max(static_cast<float>(lo), v));
  return clampi(round_half_even(c), lo, hi);
}

// ---- 32-element formats ------------------------------------------------------------------------

// Symmetric 4/5-bit: d = max / -half_range so the extreme value maps to level 0.
template <int kHalfRange>
inline float symmetric_scale(const float* x, float* id) {
  const float d = signed_absmax(x, kQK) / static_cast<float>(-kHalfRange);
  *id = d != 0.0f ? 1.0f / d : 0.0f;
  return d;
}

// Truncates v + offset to a level in [0, max_level] (offset 0.5 / 8.5 / 16.5 rounds to nearest).
inline int level(float v, float offset, int max_level) {
  const float c = v + offset;
  if (!(c > 0.0f)) return 0;  // also NaN
  if (c >= static_cast<float>(max_level)) return max_level;
  return static_cast<int>(c);
}

void quant_q4_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ4_0*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float id;
    y[i].d = fp32_to_fp16(symmetric_scale<8>(x, &id));
    for (int j = 0; j < kQK / 2; ++j) {
      const int lo = level(x[j] * id, 8.5f, 15);
      const int hi = level(x[j + kQK / 2] * id, 8.5f, 15);
      y[i].qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

void quant_q5_0(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ5_0*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float id;
    y[i].d = fp32_to_fp16(symmetric_scale<16>(x, &id));
    uint32_t qh = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      const int lo = level(x[j] * id, 16.5f, 31);
      const int hi = level(x[j + kQK / 2] * id, 16.5f, 31);
      y[i].qs[j] = static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
      qh |= static_cast<uint32_t>(lo >> 4) << j;
      qh |= static_cast<uint32_t>(hi >> 4) << (j + kQK / 2);
    }
    std::memcpy(y[i].qh, &qh, 4);
  }
}

// Affine: d = (max - min) / levels, m = min.
inline float affine_scale(const float* x, int levels, float* min_out, float* id) {
  float lo = std::numeric_limits<float>::max(), hi = -std::numeric_limits<float>::max();
  for (int j = 0; j < kQK; ++j) {
    lo = std::min(lo, x[j]);
    hi = std::max(hi, x[j]);
  }
  const float d = (hi - lo) / static_cast<float>(levels);
  *id = d != 0.0f ? 1.0f / d : 0.0f;
  *min_out = lo;
  return d;
}

void quant_q4_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ4_1*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float id, mn;
    y[i].d = fp32_to_fp16(affine_scale(x, 15, &mn, &id));
    y[i].m = fp32_to_fp16(mn);
    for (int j = 0; j < kQK / 2; ++j) {
      const int lo = level((x[j] - mn) * id, 0.5f, 15);
      const int hi = level((x[j + kQK / 2] - mn) * id, 0.5f, 15);
      y[i].qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

void quant_q5_1(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ5_1*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    float id, mn;
    y[i].d = fp32_to_fp16(affine_scale(x, 31, &mn, &id));
    y[i].m = fp32_to_fp16(mn);
    uint32_t qh = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      const int lo = level((x[j] - mn) * id, 0.5f, 31);
      const int hi = level((x[j + kQK / 2] - mn) * id, 0.5f, 31);
      y[i].qs[j] = static_cast<uint8_t>((lo & 0xF) | ((hi & 0xF) << 4));
      qh |= static_cast<uint32_t>(lo >> 4) << j;
      qh |= static_cast<uint32_t>(hi >> 4) << (j + kQK / 2);
    }
    std::memcpy(y[i].qh, &qh, 4);
  }
}

// ---- K-quant scale search ----------------------------------------------------------------------

// Fits x ≈ scale·L - min with L ∈ [0, nmax] and min ≥ 0 (so the group minimum, if negative, is
// representable). Weighted least squares over a sweep of candidate inverse scales. Returns scale;
// writes the chosen levels to L and the (non-negative) min to *min_out.
float fit_affine(const float* x, const float* w, int n, int nmax, uint8_t* L, float* min_out) {
  float lo = x[0], hi = x[0];
  for (int i = 1; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  lo = std::min(lo, 0.0f);
  if (hi <= lo) {
    std::fill(L, L + n, uint8_t{0});
    *min_out = -lo;
    return 0.0f;
  }
  float sw = 0, swx = 0;
  for (int i = 0; i < n; ++i) {
    sw += w[i];
    swx += w[i] * x[i];
  }
  // Start from the plain min/max mapping.
  float best_scale = (hi - lo) / static_cast<float>(nmax);
  float best_min = lo;
  float best_err = 0;
  for (int i = 0; i < n; ++i) {
    L[i] = static_cast<uint8_t>(quant_level((x[i] - lo) / best_scale, 0, nmax));
    const float diff = best_scale * L[i] + lo - x[i];
    best_err += w[i] * diff * diff;
  }
  uint8_t cand[32];
  for (int step = 0; step <= 20; ++step) {
    const float iscale = (static_cast<float>(nmax) - 1.0f + 0.1f * static_cast<float>(step)) / (hi - lo);
    float swl = 0, swl2 = 0, swlx = 0;
    for (int i = 0; i < n; ++i) {
      const int l = quant_level((x[i] - lo) * iscale, 0, nmax);
      cand[i] = static_cast<uint8_t>(l);
      swl += w[i] * l;
      swl2 += w[i] * l * l;
      swlx += w[i] * l * x[i];
    }
    const float det = sw * swl2 - swl * swl;
    if (det <= 0) continue;
    float scale = (sw * swlx - swx * swl) / det;
    float mn = (swl2 * swx - swl * swlx) / det;
    if (mn > 0) {  // the offset must stay ≤ 0 (stored as a subtracted, non-negative min)
      mn = 0;
      scale = swlx / swl2;
    }
    float err = 0;
    for (int i = 0; i < n; ++i) {
      const float diff = scale * cand[i] + mn - x[i];
      err += w[i] * diff * diff;
    }
    if (err < best_err) {
      best_err = err;
      best_scale = scale;
      best_min = mn;
      std::copy(cand, cand + n, L);
    }
  }
  *min_out = -best_min;
  return best_scale;
}

// Fits x ≈ scale·L with L ∈ [-nmax, nmax - 1], weights x². Returns the scale (0 for a zero group).
float fit_symmetric(const float* x, int n, int nmax) {
  const float max = signed_absmax(x, n);
  if (std::fabs(max) < 1e-15f) return 0.0f;
  float best_scale = 0.0f, best_score = -1.0f;
  for (int step = -9; step <= 9; ++step) {
    const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(step)) / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = quant_level(iscale * x[i], -nmax, nmax - 1);
      const float w = x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    // With the optimal scale sumlx/suml2 the weighted error is Σw·x² - sumlx²/suml2.
    if (suml2 > 0 && sumlx * sumlx / suml2 > best_score) {
      best_score = sumlx * sumlx / suml2;
      best_scale = sumlx / suml2;
    }
  }
  return best_scale;
}

// Packs 6-bit scale/min pairs of the 8 sub-blocks of a Q4_K / Q5_K block into 12 bytes.
void pack_k4_scales(const uint8_t* ls, const uint8_t* lm, uint8_t* s) {
  std::memset(s, 0, 12);
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      s[j] = ls[j];
      s[j + 4] = lm[j];
    } else {
      s[j + 4] = static_cast<uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      s[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
      s[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
    }
  }
}

// Quantizes the per-sub-block scales and mins of an affine K-quant block to `code_max` levels.
// Returns d and dmin (fp16) and the codes.
void quantize_scale_codes(const float* scales, const float* mins, int n_sub, int code_max, uint8_t* ls,
                          uint8_t* lm, uint16_t* d, uint16_t* dmin) {
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < n_sub; ++j) {
    max_scale = std::max(max_scale, scales[j]);
    max_min = std::max(max_min, mins[j]);
  }
  const float inv_s = max_scale > 0 ? static_cast<float>(code_max) / max_scale : 0.0f;
  const float inv_m = max_min > 0 ? static_cast<float>(code_max) / max_min : 0.0f;
  for (int j = 0; j < n_sub; ++j) {
    ls[j] = static_cast<uint8_t>(quant_level(inv_s * scales[j], 0, code_max));
    lm[j] = static_cast<uint8_t>(quant_level(inv_m * mins[j], 0, code_max));
  }
  *d = fp32_to_fp16(max_scale / static_cast<float>(code_max));
  *dmin = fp32_to_fp16(max_min / static_cast<float>(code_max));
}

// Levels of n values for the final (decoded) sub-block scale d and min dm: x ≈ d·L - dm.
void requantize_affine(const float* x, int n, float d, float dm, int nmax, uint8_t* L) {
  if (d == 0.0f) {
    std::fill(L, L + n, uint8_t{0});
    return;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<uint8_t>(quant_level((x[i] + dm) / d, 0, nmax));
}

void quant_q2_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ2_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    uint8_t L[kQKK];
    float scales[16], mins[16], w[16];
    for (int j = 0; j < 16; ++j) {
      for (int l = 0; l < 16; ++l) w[l] = std::fabs(x[16 * j + l]);
      scales[j] = fit_affine(x + 16 * j, w, 16, 3, L + 16 * j, &mins[j]);
    }
    uint8_t ls[16], lm[16];
    quantize_scale_codes(scales, mins, 16, 15, ls, lm, &y[i].d, &y[i].dmin);
    const float d = fp16_to_fp32(y[i].d), dmin = fp16_to_fp32(y[i].dmin);
    for (int j = 0; j < 16; ++j) {
      y[i].scales[j] = static_cast<uint8_t>(ls[j] | (lm[j] << 4));
      requantize_affine(x + 16 * j, 16, d * ls[j], dmin * lm[j], 3, L + 16 * j);
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* Lh = L + 128 * h;
      for (int l = 0; l < 32; ++l) {
        y[i].qs[32 * h + l] =
            static_cast<uint8_t>(Lh[l] | (Lh[l + 32] << 2) | (Lh[l + 64] << 4) | (Lh[l + 96] << 6));
      }
    }
  }
}

template <int kNmax>  // 15 for Q4_K, 31 for Q5_K
void fit_k4_block(const float* x, uint8_t* L, uint16_t* d_out, uint16_t* dmin_out, uint8_t* scales12) {
  float scales[8], mins[8], w[32];
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float rms = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < 32; ++l) w[l] = rms + std::fabs(xs[l]);
    scales[j] = fit_affine(xs, w, 32, kNmax, L + 32 * j, &mins[j]);
  }
  uint8_t ls[8], lm[8];
  quantize_scale_codes(scales, mins, 8, 63, ls, lm, d_out, dmin_out);
  pack_k4_scales(ls, lm, scales12);
  const float d = fp16_to_fp32(*d_out), dmin = fp16_to_fp32(*dmin_out);
  for (int j = 0; j < 8; ++j) requantize_affine(x + 32 * j, 32, d * ls[j], dmin * lm[j], kNmax, L + 32 * j);
}

void quant_q4_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ4_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    uint8_t L[kQKK];
    fit_k4_block<15>(x, L, &y[i].d, &y[i].dmin, y[i].scales);
    for (int c = 0; c < 4; ++c) {
      for (int l = 0; l < 32; ++l)
        y[i].qs[32 * c + l] = static_cast<uint8_t>(L[64 * c + l] | (L[64 * c + l + 32] << 4));
    }
  }
}

void quant_q5_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ5_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    uint8_t L[kQKK];
    fit_k4_block<31>(x, L, &y[i].d, &y[i].dmin, y[i].scales);
    std::memset(y[i].qh, 0, sizeof y[i].qh);
    for (int c = 0; c < 4; ++c) {
      for (int l = 0; l < 32; ++l) {
        const int a = L[64 * c + l], b = L[64 * c + l + 32];
        y[i].qs[32 * c + l] = static_cast<uint8_t>((a & 0xF) | ((b & 0xF) << 4));
        y[i].qh[l] |= static_cast<uint8_t>(((a >> 4) << (2 * c)) | ((b >> 4) << (2 * c + 1)));
      }
    }
  }
}

void quant_q3_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ3_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    float scales[16];
    for (int j = 0; j < 16; ++j) scales[j] = fit_symmetric(x + 16 * j, 16, 4);
    const float max_scale = signed_absmax(scales, 16);
    std::memset(y[i].scales, 0, 12);
    int8_t sc[16] = {};
    if (max_scale != 0.0f) {
      const float iscale = -32.0f / max_scale;
      for (int j = 0; j < 16; ++j) {
        const int l = quant_level(iscale * scales[j], -32, 31) + 32;
        if (j < 8) {
          y[i].scales[j] = static_cast<uint8_t>(l & 0xF);
        } else {
          y[i].scales[j - 8] |= static_cast<uint8_t>((l & 0xF) << 4);
        }
        y[i].scales[8 + j % 4] |= static_cast<uint8_t>((l >> 4) << (2 * (j / 4)));
      }
      y[i].d = fp32_to_fp16(1.0f / iscale);
      q3k_scales(y[i].scales, sc);
    } else {
      y[i].d = fp32_to_fp16(0.0f);
    }
    const float d = fp16_to_fp32(y[i].d);
    uint8_t L[kQKK];
    for (int j = 0; j < 16; ++j) {
      const float dl = d * sc[j];
      for (int l = 0; l < 16; ++l) {
        L[16 * j + l] = static_cast<uint8_t>(dl != 0.0f ? quant_level(x[16 * j + l] / dl, -4, 3) + 4 : 4);
      }
    }
    std::memset(y[i].hmask, 0, sizeof y[i].hmask);
    for (int j = 0; j < kQKK; ++j) {
      if (L[j] > 3) {
        y[i].hmask[j % 32] |= static_cast<uint8_t>(1u << (j / 32));
        L[j] = static_cast<uint8_t>(L[j] - 4);
      }
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* Lh = L + 128 * h;
      for (int l = 0; l < 32; ++l) {
        y[i].qs[32 * h + l] =
            static_cast<uint8_t>(Lh[l] | (Lh[l + 32] << 2) | (Lh[l + 64] << 4) | (Lh[l + 96] << 6));
      }
    }
  }
}

void quant_q6_k(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockQ6_K*>(dst);
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    float scales[16];
    for (int j = 0; j < 16; ++j) scales[j] = fit_symmetric(x + 16 * j, 16, 32);
    const float max_scale = signed_absmax(scales, 16);
    std::memset(&y[i], 0, sizeof(BlockQ6_K));
    uint8_t L[kQKK];
    std::fill(L, L + kQKK, uint8_t{32});
    if (std::fabs(max_scale) >= 1e-15f) {
      const float iscale = -128.0f / max_scale;
      y[i].d = fp32_to_fp16(1.0f / iscale);
      const float d = fp16_to_fp32(y[i].d);
      for (int j = 0; j < 16; ++j) {
        y[i].scales[j] = static_cast<int8_t>(quant_level(iscale * scales[j], -128, 127));
        const float dl = d * y[i].scales[j];
        if (dl == 0.0f) continue;
        for (int l = 0; l < 16; ++l) {
          L[16 * j + l] = static_cast<uint8_t>(quant_level(x[16 * j + l] / dl, -32, 31) + 32);
        }
      }
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* Lh = L + 128 * h;
      uint8_t* ql = y[i].ql + 64 * h;
      uint8_t* qh = y[i].qh + 32 * h;
      for (int l = 0; l < 32; ++l) {
        ql[l] = static_cast<uint8_t>((Lh[l] & 0xF) | ((Lh[l + 64] & 0xF) << 4));
        ql[l + 32] = static_cast<uint8_t>((Lh[l + 32] & 0xF) | ((Lh[l + 96] & 0xF) << 4));
        qh[l] = static_cast<uint8_t>((Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) | ((Lh[l + 64] >> 4) << 4) |
                                     ((Lh[l + 96] >> 4) << 6));
      }
    }
  }
}

}  // namespace

void install_scalar_quantize_weight(KernelTable& t) {
  t.quantize[slot(TensorType::Q4_0)] = quant_q4_0;
  t.quantize[slot(TensorType::Q4_1)] = quant_q4_1;
  t.quantize[slot(TensorType::Q5_0)] = quant_q5_0;
  t.quantize[slot(TensorType::Q5_1)] = quant_q5_1;
  t.quantize[slot(TensorType::Q2_K)] = quant_q2_k;
  t.quantize[slot(TensorType::Q3_K)] = quant_q3_k;
  t.quantize[slot(TensorType::Q4_K)] = quant_q4_k;
  t.quantize[slot(TensorType::Q5_K)] = quant_q5_k;
  t.quantize[slot(TensorType::Q6_K)] = quant_q6_k;
}

}  // namespace a3s::power::kernels

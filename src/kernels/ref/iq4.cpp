// IQ4_NL and IQ4_XS (ggml-common.h block_iq4_nl / block_iq4_xs): dequantization, dot products with
// the Q8_0 / Q8_K activations, and weight quantization (synthetic models).
//
// Dot-product order (the oracle of every ISA path; lanes8.h):
//   - IQ4_NL · Q8_0: the block's integer total, one scalar FMA per block with d_w · d_x, as the
//     repacked IQ4_NL kernels of llama.cpp on AVX2 (the same arithmetic as Q4_0 here).
//   - IQ4_XS · Q8_K: per super-block, eight int32 lanes (lanes8::int_lanes over each sub-block's 32
//     products) each multiplied by the sub-block's signed scale (ls − 32) and summed over the eight
//     sub-blocks; the lanes then scaled by d_w · d_x with one FMA each into an 8-lane accumulator,
//     summed by lanes8::hsum at the end (llama.cpp's AVX2 ggml_vec_dot_iq4_xs_q8_K).
//
// Quantization: per 32 elements, the scale is chosen among candidates around max|x| / 127 (with the
// sign of the largest element) by the squared error after picking each element's nearest table
// value, then refined by least squares for those indices. IQ4_XS then quantizes the 8 sub-block
// scales to 6 bits against the super-block scale and re-picks the indices. The result need only be
// a good IQ4 file: the engine's parity is with llama.cpp reading the same file.
#include <cmath>
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/lanes8.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

using half::fp16_to_fp32;
using half::fp32_to_fp16;
using lanes8::kLanes;

// Indices of 32 elements from Q4_0-ordered nibbles: element j low nibble of byte j, j + 16 high.
void unpack(const uint8_t* qs, int* idx) {
  for (int j = 0; j < kQK / 2; ++j) {
    idx[j] = qs[j] & 0xF;
    idx[j + kQK / 2] = qs[j] >> 4;
  }
}

int iq4_xs_scale(const BlockIQ4XS& b, int s) {
  const int lo = (b.scales_l[s / 2] >> (4 * (s % 2))) & 0xF;
  const int hi = (b.scales_h >> (2 * s)) & 0x3;
  return (lo | (hi << 4)) - 32;
}

void deq_iq4_nl(const void* src, float* y, int64_t n) {
  const auto* b = static_cast<const BlockIQ4NL*>(src);
  for (int64_t i = 0; i < n / kQK; ++i, y += kQK) {
    const float d = fp16_to_fp32(b[i].d);
    int idx[kQK];
    unpack(b[i].qs, idx);
    for (int j = 0; j < kQK; ++j) y[j] = d * static_cast<float>(kIq4Values[idx[j]]);
  }
}

void deq_iq4_xs(const void* src, float* y, int64_t n) {
  const auto* b = static_cast<const BlockIQ4XS*>(src);
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const float d = fp16_to_fp32(b[i].d);
    for (int s = 0; s < kQKK / kQK; ++s, y += kQK) {
      const float dl = d * static_cast<float>(iq4_xs_scale(b[i], s));
      int idx[kQK];
      unpack(b[i].qs + s * kQK / 2, idx);
      for (int j = 0; j < kQK; ++j) y[j] = dl * static_cast<float>(kIq4Values[idx[j]]);
    }
  }
}

void dot_iq4_nl(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockIQ4NL*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int idx[kQK];
    unpack(a[i].qs, idx);
    int isum = 0;
    for (int e = 0; e < kQK; ++e) isum += kIq4Values[idx[e]] * b[i].qs[e];
    sum = std::fma(static_cast<float>(isum), fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d), sum);
  }
  *out = sum;
}

void dot_iq4_xs(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockIQ4XS*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  lanes8::Acc acc;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int32_t lanes[kLanes] = {};
    for (int s = 0; s < kQKK / kQK; ++s) {
      int idx[kQK];
      unpack(a[i].qs + s * kQK / 2, idx);
      int32_t p[kQK];
      for (int e = 0; e < kQK; ++e) p[e] = kIq4Values[idx[e]] * b[i].qs[s * kQK + e];
      int32_t sub[kLanes];
      lanes8::int_lanes(p, kQK, sub);
      const int ls = iq4_xs_scale(a[i], s);
      for (int l = 0; l < kLanes; ++l) lanes[l] += sub[l] * ls;
    }
    acc.fma_int(fp16_to_fp32(a[i].d) * b[i].d, lanes);
  }
  *out = acc.sum();
}

int nearest_index(float v) {
  int best = 0;
  float best_err = std::fabs(v - kIq4Values[0]);
  for (int k = 1; k < 16; ++k) {
    const float err = std::fabs(v - kIq4Values[k]);
    if (err < best_err) {
      best_err = err;
      best = k;
    }
  }
  return best;
}

// The scale for 32 elements (and their indices): the best of the candidates, refined by least squares.
float fit_block(const float* x, int* idx) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kQK; ++j) {
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  if (amax == 0.0f) {
    for (int j = 0; j < kQK; ++j) idx[j] = nearest_index(0.0f);
    return 0.0f;
  }
  float best_d = 0.0f, best_err = INFINITY;
  int cand[kQK];
  for (int t = -8; t <= 8; ++t) {
    const float d = -max / (127.0f + 2.0f * static_cast<float>(t));
    double sxv = 0, svv = 0;
    for (int j = 0; j < kQK; ++j) {
      cand[j] = nearest_index(x[j] / d);
      const double v = kIq4Values[cand[j]];
      sxv += x[j] * v;
      svv += v * v;
    }
    const float dl = svv > 0 ? static_cast<float>(sxv / svv) : d;  // least squares for these indices
    double err = 0;
    for (int j = 0; j < kQK; ++j) {
      const double e = x[j] - dl * kIq4Values[cand[j]];
      err += e * e;
    }
    if (err < best_err) {
      best_err = static_cast<float>(err);
      best_d = dl;
      std::memcpy(idx, cand, sizeof(cand));
    }
  }
  return best_d;
}

void pack(const int* idx, uint8_t* qs) {
  for (int j = 0; j < kQK / 2; ++j) qs[j] = static_cast<uint8_t>(idx[j] | (idx[j + kQK / 2] << 4));
}

void quant_iq4_nl(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockIQ4NL*>(dst);
  for (int64_t i = 0; i < n / kQK; ++i, x += kQK) {
    int idx[kQK];
    const float d = fit_block(x, idx);
    y[i].d = fp32_to_fp16(d);
    pack(idx, y[i].qs);
  }
}

void quant_iq4_xs(const float* x, void* dst, int64_t n) {
  auto* y = static_cast<BlockIQ4XS*>(dst);
  constexpr int kSub = kQKK / kQK;
  for (int64_t i = 0; i < n / kQKK; ++i, x += kQKK) {
    float scales[kSub];
    int idx[kQK];
    float amax = 0.0f;
    for (int s = 0; s < kSub; ++s) {
      scales[s] = fit_block(x + s * kQK, idx);
      amax = std::max(amax, std::fabs(scales[s]));
    }
    // Sub-block scales d · (ls − 32) with ls − 32 in [−32, 31]: d from the largest magnitude.
    const float d = amax / 31.0f;
    y[i].d = fp32_to_fp16(d);
    const float dq = fp16_to_fp32(y[i].d);
    y[i].scales_h = 0;
    std::memset(y[i].scales_l, 0, sizeof(y[i].scales_l));
    for (int s = 0; s < kSub; ++s) {
      int l = dq > 0 ? static_cast<int>(std::lround(scales[s] / dq)) : 0;
      l = std::min(31, std::max(-32, l));
      const int ls = l + 32;
      y[i].scales_l[s / 2] = static_cast<uint8_t>(y[i].scales_l[s / 2] | ((ls & 0xF) << (4 * (s % 2))));
      y[i].scales_h = static_cast<uint16_t>(y[i].scales_h | (((ls >> 4) & 0x3) << (2 * s)));
      const float dl = dq * static_cast<float>(l);
      for (int j = 0; j < kQK; ++j) idx[j] = nearest_index(dl != 0.0f ? x[s * kQK + j] / dl : 0.0f);
      pack(idx, y[i].qs + s * kQK / 2);
    }
  }
}

}  // namespace

void install_scalar_iq4(KernelTable& t) {
  t.dequantize[slot(TensorType::IQ4_NL)] = deq_iq4_nl;
  t.dequantize[slot(TensorType::IQ4_XS)] = deq_iq4_xs;
  t.vec_dot[slot(TensorType::IQ4_NL)] = dot_iq4_nl;
  t.vec_dot[slot(TensorType::IQ4_XS)] = dot_iq4_xs;
  t.quantize[slot(TensorType::IQ4_NL)] = quant_iq4_nl;
  t.quantize[slot(TensorType::IQ4_XS)] = quant_iq4_xs;
}

}  // namespace a3s::power::kernels

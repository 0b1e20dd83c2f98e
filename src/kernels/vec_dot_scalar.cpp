// Scalar reference dot products (the oracle of every ISA path). Semantics follow llama.cpp's
// `ggml_vec_dot_*` generic code: float rows are summed in double; quantized rows sum integer products
// inside each block and add `block_sum · scales` to a float accumulator block by block; K-quant minima
// are subtracted through the Q8_K bsums.
#include <cstring>

#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/scalar_install.h"

namespace a3s::power::kernels {
namespace {

using half::fp16_to_fp32;

void dot_f32(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const float*>(w);
  const auto* b = static_cast<const float*>(x);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(a[i] * b[i]);
  *out = static_cast<float>(sum);
}

void dot_f16(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const uint16_t*>(w);
  const auto* b = static_cast<const uint16_t*>(x);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(fp16_to_fp32(a[i]) * fp16_to_fp32(b[i]));
  *out = static_cast<float>(sum);
}

void dot_bf16(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const uint16_t*>(w);
  const auto* b = static_cast<const uint16_t*>(x);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    sum += static_cast<double>(half::bf16_to_fp32(a[i]) * half::bf16_to_fp32(b[i]));
  }
  *out = static_cast<float>(sum);
}

void dot_q4_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int isum = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      isum += ((a[i].qs[j] & 0xF) - 8) * b[i].qs[j];
      isum += ((a[i].qs[j] >> 4) - 8) * b[i].qs[j + kQK / 2];
    }
    sum += static_cast<float>(isum) * fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d);
  }
  *out = sum;
}

void dot_q4_1(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_1*>(w);
  const auto* b = static_cast<const BlockQ8_1*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int isum = 0;
    for (int j = 0; j < kQK / 2; ++j) {
      isum += (a[i].qs[j] & 0xF) * b[i].qs[j];
      isum += (a[i].qs[j] >> 4) * b[i].qs[j + kQK / 2];
    }
    sum += (fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d)) * static_cast<float>(isum) +
           fp16_to_fp32(a[i].m) * fp16_to_fp32(b[i].s);
  }
  *out = sum;
}

inline int q5_int_dot(const uint8_t* qs, const uint8_t* qh_bytes, const int8_t* y, int offset) {
  uint32_t qh;
  std::memcpy(&qh, qh_bytes, 4);
  int isum = 0;
  for (int j = 0; j < kQK / 2; ++j) {
    const int lo = (qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4);
    const int hi = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
    isum += (lo - offset) * y[j] + (hi - offset) * y[j + kQK / 2];
  }
  return isum;
}

void dot_q5_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const int isum = q5_int_dot(a[i].qs, a[i].qh, b[i].qs, 16);
    sum += (fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d)) * static_cast<float>(isum);
  }
  *out = sum;
}

void dot_q5_1(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_1*>(w);
  const auto* b = static_cast<const BlockQ8_1*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    const int isum = q5_int_dot(a[i].qs, a[i].qh, b[i].qs, 0);
    sum += (fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d)) * static_cast<float>(isum) +
           fp16_to_fp32(a[i].m) * fp16_to_fp32(b[i].s);
  }
  *out = sum;
}

void dot_q8_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ8_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int isum = 0;
    for (int j = 0; j < kQK; ++j) isum += a[i].qs[j] * b[i].qs[j];
    sum += static_cast<float>(isum) * (fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d));
  }
  *out = sum;
}

void dot_q2_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ2_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int summs = 0;
    for (int j = 0; j < 16; ++j) summs += b[i].bsums[j] * (a[i].scales[j] >> 4);
    const float dall = b[i].d * fp16_to_fp32(a[i].d);
    const float dmin = b[i].d * fp16_to_fp32(a[i].dmin);
    int isum = 0;
    int is = 0;
    const uint8_t* q2 = a[i].qs;
    const int8_t* q8 = b[i].qs;
    for (int half = 0; half < 2; ++half, q2 += 32) {
      for (int shift = 0; shift < 8; shift += 2) {
        for (int g = 0; g < 2; ++g, q8 += 16) {
          int s = 0;
          for (int l = 0; l < 16; ++l) s += q8[l] * ((q2[16 * g + l] >> shift) & 3);
          isum += (a[i].scales[is++] & 0xF) * s;
        }
      }
    }
    sum += dall * static_cast<float>(isum) - dmin * static_cast<float>(summs);
  }
  *out = sum;
}

void dot_q3_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ3_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int8_t scales[16];
    q3k_scales(a[i].scales, scales);
    const uint8_t* q3 = a[i].qs;
    const int8_t* q8 = b[i].qs;
    uint8_t mask = 1;
    int isum = 0;
    int is = 0;
    for (int half = 0; half < 2; ++half, q3 += 32) {
      for (int shift = 0; shift < 8; shift += 2, mask = static_cast<uint8_t>(mask << 1)) {
        for (int g = 0; g < 2; ++g, q8 += 16) {
          int s = 0;
          for (int l = 16 * g; l < 16 * g + 16; ++l) {
            const int v = ((q3[l] >> shift) & 3) - ((a[i].hmask[l] & mask) ? 0 : 4);
            s += v * q8[l - 16 * g];
          }
          isum += scales[is++] * s;
        }
      }
    }
    sum += fp16_to_fp32(a[i].d) * b[i].d * static_cast<float>(isum);
  }
  *out = sum;
}

// Σ_j m_j · (bsums[2j] + bsums[2j+1]) for the eight 32-element sub-blocks of a Q4_K/Q5_K block.
inline int k4_min_sum(const uint8_t* scales, const int16_t* bsums) {
  int s = 0;
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    k4_scale_min(j, scales, &sc, &m);
    s += m * (bsums[2 * j] + bsums[2 * j + 1]);
  }
  return s;
}

void dot_q4_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const uint8_t* q4 = a[i].qs;
    const int8_t* q8 = b[i].qs;
    int isum = 0;
    for (int j = 0; j < 8; j += 2, q4 += 32, q8 += 64) {
      uint8_t sc0, sc1, m;
      k4_scale_min(j, a[i].scales, &sc0, &m);
      k4_scale_min(j + 1, a[i].scales, &sc1, &m);
      int s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += (q4[l] & 0xF) * q8[l];
        s1 += (q4[l] >> 4) * q8[l + 32];
      }
      isum += sc0 * s0 + sc1 * s1;
    }
    const float d = b[i].d * fp16_to_fp32(a[i].d);
    const float dmin = b[i].d * fp16_to_fp32(a[i].dmin);
    sum += d * static_cast<float>(isum) - dmin * static_cast<float>(k4_min_sum(a[i].scales, b[i].bsums));
  }
  *out = sum;
}

void dot_q5_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const uint8_t* ql = a[i].qs;
    const uint8_t* qh = a[i].qh;
    const int8_t* q8 = b[i].qs;
    int isum = 0;
    uint8_t u1 = 1, u2 = 2;
    for (int j = 0; j < 8; j += 2, ql += 32, q8 += 64) {
      uint8_t sc0, sc1, m;
      k4_scale_min(j, a[i].scales, &sc0, &m);
      k4_scale_min(j + 1, a[i].scales, &sc1, &m);
      int s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += ((ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0)) * q8[l];
        s1 += ((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) * q8[l + 32];
      }
      isum += sc0 * s0 + sc1 * s1;
      u1 = static_cast<uint8_t>(u1 << 2);
      u2 = static_cast<uint8_t>(u2 << 2);
    }
    const float d = b[i].d * fp16_to_fp32(a[i].d);
    const float dmin = b[i].d * fp16_to_fp32(a[i].dmin);
    sum += d * static_cast<float>(isum) - dmin * static_cast<float>(k4_min_sum(a[i].scales, b[i].bsums));
  }
  *out = sum;
}

void dot_q6_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ6_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    const uint8_t* ql = a[i].ql;
    const uint8_t* qh = a[i].qh;
    const int8_t* sc = a[i].scales;
    const int8_t* q8 = b[i].qs;
    int isum = 0;
    for (int half = 0; half < 2; ++half, ql += 64, qh += 32, sc += 8, q8 += 128) {
      int s[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // per 16-element group of this 128-half
      for (int l = 0; l < 32; ++l) {
        const int g = l / 16;
        s[g + 0] += (((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32) * q8[l];
        s[g + 2] += (((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32) * q8[l + 32];
        s[g + 4] += (((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32) * q8[l + 64];
        s[g + 6] += (((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32) * q8[l + 96];
      }
      for (int g = 0; g < 8; ++g) isum += sc[g] * s[g];
    }
    sum += fp16_to_fp32(a[i].d) * b[i].d * static_cast<float>(isum);
  }
  *out = sum;
}

}  // namespace

void install_scalar_vec_dot(KernelTable& t) {
  t.vec_dot[slot(TensorType::F32)] = dot_f32;
  t.vec_dot[slot(TensorType::F16)] = dot_f16;
  t.vec_dot[slot(TensorType::BF16)] = dot_bf16;
  t.vec_dot[slot(TensorType::Q4_0)] = dot_q4_0;
  t.vec_dot[slot(TensorType::Q4_1)] = dot_q4_1;
  t.vec_dot[slot(TensorType::Q5_0)] = dot_q5_0;
  t.vec_dot[slot(TensorType::Q5_1)] = dot_q5_1;
  t.vec_dot[slot(TensorType::Q8_0)] = dot_q8_0;
  t.vec_dot[slot(TensorType::Q2_K)] = dot_q2_k;
  t.vec_dot[slot(TensorType::Q3_K)] = dot_q3_k;
  t.vec_dot[slot(TensorType::Q4_K)] = dot_q4_k;
  t.vec_dot[slot(TensorType::Q5_K)] = dot_q5_k;
  t.vec_dot[slot(TensorType::Q6_K)] = dot_q6_k;
}

}  // namespace a3s::power::kernels

// Scalar reference dot products (the oracle of every ISA path). They define the arithmetic: the AVX2
// kernels perform the same float operations in the same order (lanes8.h), so every path returns the
// same bits. The order is that of the AVX2 kernels (tuned to reproduce llama.cpp's x86 results):
//   - quantized rows: integer products summed exactly inside each block into the eight int32 lanes
//     of a 32-byte vector (lanes8::int_lanes), each lane scaled by the block factors and accumulated
//     with one FMA per block; the lanes summed at the end by lanes8::hsum. Q4_0, Q3_K, Q4_K, Q5_K and
//     Q6_K add the (super-)block's integer total with one scalar FMA instead (the order of the panel
//     kernels, avx512/panel.cpp, which keep one row per vector lane). K-quant minima (and the offsets
//     of the unsigned Q3_K / Q6_K quants) are applied through the Q8_K bsums;
//   - F32 / F16 rows: 8-lane FMA accumulators, the last n % 8 products added in double;
//   - BF16 rows: the pair order of llama.cpp's AVX512-BF16 kernels (bf16_pairs.h), one order for a
//     single token (vec_dot) and one for matmul with two or more tokens (vec_dot_batch).
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/bf16_pairs.h"
#include "kernels/blocks.h"
#include "kernels/half.h"
#include "kernels/lanes8.h"
#include "kernels/ref/install.h"

namespace a3s::power::kernels {
namespace {

using half::fp16_to_fp32;
using lanes8::kLanes;

// ---- float rows ----------------------------------------------------------------------------------

float f32_at(const void* p, int64_t i) {
  return static_cast<const float*>(p)[i];
}
float f16_at(const void* p, int64_t i) {
  return fp16_to_fp32(static_cast<const uint16_t*>(p)[i]);
}

// Two 8-lane accumulators over steps of 16 elements, the remaining whole 8-element step into the
// first; the accumulators added lane by lane, the lanes summed by hsum, then the last n % 8 products
// (rounded to float) added in double.
template <float (*At)(const void*, int64_t)>
void dot_float(int64_t n, float* out, const void* w, const void* x) {
  lanes8::Acc acc[2];
  auto step = [&](int64_t i, lanes8::Acc& a) {
    float wv[kLanes], xv[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      wv[l] = At(w, i + l);
      xv[l] = At(x, i + l);
    }
    a.fma(wv, xv);
  };
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    step(i, acc[0]);
    step(i + kLanes, acc[1]);
  }
  for (; i + kLanes <= n; i += kLanes) step(i, acc[0]);
  float v[kLanes];
  for (int l = 0; l < kLanes; ++l) v[l] = acc[0].v[l] + acc[1].v[l];
  double sum = lanes8::hsum(v);
  for (; i < n; ++i) sum += static_cast<double>(At(w, i) * At(x, i));
  *out = static_cast<float>(sum);
}

void dot_bf16(int64_t n, float* out, const void* w, const void* x) {
  *out = bf16_pairs::dot_one_token(n, static_cast<const uint16_t*>(w), static_cast<const uint16_t*>(x));
}

void dot_bf16_batch(int64_t n, float* out, const void* w, const void* x) {
  *out = bf16_pairs::dot_batch(n, static_cast<const uint16_t*>(w), static_cast<const uint16_t*>(x));
}

// ---- 32-element blocks ---------------------------------------------------------------------------

// The int32 lanes of the products q[e] · y[e] of one block.
void block_lanes(const int* q, const int8_t* y, int32_t* s) {
  int32_t p[kQK];
  for (int e = 0; e < kQK; ++e) p[e] = q[e] * y[e];
  lanes8::int_lanes(p, kQK, s);
}

// Element values of the nibble formats: element j in the low nibble of byte j, element j + 16 in
// the high nibble; Q5: the fifth bit of element e is bit e of qh. `offset` is subtracted.
void unpack_q4(const uint8_t* qs, int offset, int* q) {
  for (int j = 0; j < kQK / 2; ++j) {
    q[j] = (qs[j] & 0xF) - offset;
    q[j + kQK / 2] = (qs[j] >> 4) - offset;
  }
}
void unpack_q5(const uint8_t* qs, const uint8_t* qh_bytes, int offset, int* q) {
  uint32_t qh;
  std::memcpy(&qh, qh_bytes, 4);
  unpack_q4(qs, 0, q);
  for (int e = 0; e < kQK; ++e) q[e] = (q[e] | static_cast<int>(((qh >> e) & 1u) << 4)) - offset;
}

// One FMA per block with the block's integer total (llama.cpp's repacked Q4_0 kernels on AVX2).
void dot_q4_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ4_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int q[kQK];
    unpack_q4(a[i].qs, 8, q);
    int isum = 0;
    for (int e = 0; e < kQK; ++e) isum += q[e] * b[i].qs[e];
    sum = std::fma(static_cast<float>(isum), fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d), sum);
  }
  *out = sum;
}

// Q4_1 / Q5_1: lanes of unsigned quants times Q8_1, plus m · s per block in one scalar FMA chain.
template <bool kFive>
void dot_q_1(int64_t n, float* out, const void* w, const void* x) {
  using Block = std::conditional_t<kFive, BlockQ5_1, BlockQ4_1>;
  const auto* a = static_cast<const Block*>(w);
  const auto* b = static_cast<const BlockQ8_1*>(x);
  lanes8::Acc acc;
  float mins = 0.0f;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int q[kQK];
    if constexpr (kFive) {
      unpack_q5(a[i].qs, a[i].qh, 0, q);
    } else {
      unpack_q4(a[i].qs, 0, q);
    }
    int32_t s[kLanes];
    block_lanes(q, b[i].qs, s);
    mins = std::fma(fp16_to_fp32(a[i].m), fp16_to_fp32(b[i].s), mins);
    acc.fma_int(fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d), s);
  }
  *out = acc.sum() + mins;
}

void dot_q5_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ5_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  lanes8::Acc acc;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int q[kQK];
    unpack_q5(a[i].qs, a[i].qh, 16, q);
    int32_t s[kLanes];
    block_lanes(q, b[i].qs, s);
    acc.fma_int(fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d), s);
  }
  *out = acc.sum();
}

void dot_q8_0(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ8_0*>(w);
  const auto* b = static_cast<const BlockQ8_0*>(x);
  lanes8::Acc acc;
  for (int64_t i = 0; i < n / kQK; ++i) {
    int q[kQK];
    for (int e = 0; e < kQK; ++e) q[e] = a[i].qs[e];
    int32_t s[kLanes];
    block_lanes(q, b[i].qs, s);
    acc.fma_int(fp16_to_fp32(a[i].d) * fp16_to_fp32(b[i].d), s);
  }
  *out = acc.sum();
}

// ---- K-quants ------------------------------------------------------------------------------------
// Quants are unpacked into q[256] in element order (the order of the Q8_K activations), then
// multiplied with the activations and the scale of their group of 16.

// The products of one super-block: p[16g + k] = sc16[g] · q[16g + k] · y[16g + k].
void superblock_products(const int* q, const int* sc16, const int8_t* y, int32_t* p) {
  for (int g = 0; g < kQKK / 16; ++g) {
    for (int k = 16 * g; k < 16 * g + 16; ++k) p[k] = sc16[g] * q[k] * y[k];
  }
}
int total_of(const int32_t* p, int n) {
  int t = 0;
  for (int e = 0; e < n; ++e) t += p[e];
  return t;
}
// Σ_g sc16[g] · bsums[g] over the 16 groups of 16 of a Q8_K block.
int scaled_bsums(const int* sc16, const int16_t* bsums) {
  int t = 0;
  for (int g = 0; g < kQKK / 16; ++g) t += sc16[g] * bsums[g];
  return t;
}

// 2-bit planes (Q2_K, Q3_K): element 128·h + 32·p + l in bits 2p of byte 32·h + l of qs.
void unpack_planes2(const uint8_t* qs, int* q) {
  for (int h = 0; h < 2; ++h) {
    for (int p = 0; p < 4; ++p) {
      for (int l = 0; l < 32; ++l) q[128 * h + 32 * p + l] = (qs[32 * h + l] >> (2 * p)) & 3;
    }
  }
}

void dot_q2_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ2_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  lanes8::Acc acc;
  float mins = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int sc16[16], m16[16], q[kQKK];
    for (int g = 0; g < 16; ++g) {
      sc16[g] = a[i].scales[g] & 0xF;
      m16[g] = a[i].scales[g] >> 4;
    }
    unpack_planes2(a[i].qs, q);
    mins =
        std::fma(b[i].d * fp16_to_fp32(a[i].dmin), static_cast<float>(scaled_bsums(m16, b[i].bsums)), mins);
    int32_t p[kQKK], s[kLanes];
    superblock_products(q, sc16, b[i].qs, p);
    lanes8::int_lanes(p, kQKK, s);
    acc.fma_int(b[i].d * fp16_to_fp32(a[i].d), s);
  }
  *out = acc.sum() - mins;
}

// Quants stored as u = 2-bit plane value + 4·(bit e / 32 of hmask[e % 32]) ∈ [0, 7], meaning u - 4:
// Σ sc·u·y - 4·Σ sc·bsums.
void dot_q3_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ3_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int8_t sc8[16];
    q3k_scales(a[i].scales, sc8);
    int sc16[16], q[kQKK];
    for (int g = 0; g < 16; ++g) sc16[g] = sc8[g];
    unpack_planes2(a[i].qs, q);
    for (int j = 0; j < 8; ++j) {
      for (int l = 0; l < 32; ++l) q[32 * j + l] |= ((a[i].hmask[l] >> j) & 1) << 2;
    }
    int32_t p[kQKK];
    superblock_products(q, sc16, b[i].qs, p);
    const int total = total_of(p, kQKK) - 4 * scaled_bsums(sc16, b[i].bsums);
    sum = std::fma(fp16_to_fp32(a[i].d) * b[i].d, static_cast<float>(total), sum);
  }
  *out = sum;
}

// Q4_K / Q5_K (kFive): sub-block j (elements 32j .. 32j + 31) in the low (j even) or high (j odd)
// nibbles of bytes 32·(j / 2) .. +31 of qs; Q5_K: bit j of qh[l] is the fifth bit of element 32j + l.
// Scales and minima per sub-block, i.e. per two groups of 16. Two FMA chains, one of the super-blocks'
// integer totals and one of their minima, subtracted at the end.
template <bool kFive>
void dot_k4(int64_t n, float* out, const void* w, const void* x) {
  using Block = std::conditional_t<kFive, BlockQ5_K, BlockQ4_K>;
  const auto* a = static_cast<const Block*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f, mins = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int sc16[16], m16[16], q[kQKK];
    for (int g = 0; g < 16; ++g) {
      uint8_t sc, m;
      k4_scale_min(g / 2, a[i].scales, &sc, &m);
      sc16[g] = sc;
      m16[g] = m;
    }
    for (int j = 0; j < 8; ++j) {
      for (int l = 0; l < 32; ++l) {
        int v = (a[i].qs[32 * (j / 2) + l] >> (4 * (j % 2))) & 0xF;
        if constexpr (kFive) v |= ((a[i].qh[l] >> j) & 1) << 4;
        q[32 * j + l] = v;
      }
    }
    mins =
        std::fma(b[i].d * fp16_to_fp32(a[i].dmin), static_cast<float>(scaled_bsums(m16, b[i].bsums)), mins);
    int32_t p[kQKK];
    superblock_products(q, sc16, b[i].qs, p);
    sum = std::fma(b[i].d * fp16_to_fp32(a[i].d), static_cast<float>(total_of(p, kQKK)), sum);
  }
  *out = sum - mins;
}

// Quants stored unsigned (q + 32), element 128·h + 32·p + l: low 4 bits in the low (p < 2) or high
// nibble of ql[64·h + 32·(p % 2) + l], high 2 bits in bits 2p of qh[32·h + l].
// Σ sc·u·y - 32·Σ sc·bsums.
void dot_q6_k(int64_t n, float* out, const void* w, const void* x) {
  const auto* a = static_cast<const BlockQ6_K*>(w);
  const auto* b = static_cast<const BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t i = 0; i < n / kQKK; ++i) {
    int sc16[16], q[kQKK];
    for (int g = 0; g < 16; ++g) sc16[g] = a[i].scales[g];
    for (int h = 0; h < 2; ++h) {
      for (int p = 0; p < 4; ++p) {
        for (int l = 0; l < 32; ++l) {
          const int low = (a[i].ql[64 * h + 32 * (p % 2) + l] >> (4 * (p / 2))) & 0xF;
          const int high = (a[i].qh[32 * h + l] >> (2 * p)) & 3;
          q[128 * h + 32 * p + l] = low | (high << 4);
        }
      }
    }
    int32_t p[kQKK];
    superblock_products(q, sc16, b[i].qs, p);
    const int total = total_of(p, kQKK) - 32 * scaled_bsums(sc16, b[i].bsums);
    sum = std::fma(fp16_to_fp32(a[i].d) * b[i].d, static_cast<float>(total), sum);
  }
  *out = sum;
}

}  // namespace

void install_scalar_vec_dot(KernelTable& t) {
  // F32 / F16: two accumulators, the order of the AVX2 matmul tiles; BF16: bf16_pairs.h.
  t.vec_dot[slot(TensorType::F32)] = dot_float<f32_at>;
  t.vec_dot[slot(TensorType::F16)] = dot_float<f16_at>;
  t.vec_dot[slot(TensorType::BF16)] = dot_bf16;
  t.vec_dot_batch[slot(TensorType::BF16)] = dot_bf16_batch;
  t.vec_dot[slot(TensorType::Q4_0)] = dot_q4_0;
  t.vec_dot[slot(TensorType::Q4_1)] = dot_q_1<false>;
  t.vec_dot[slot(TensorType::Q5_0)] = dot_q5_0;
  t.vec_dot[slot(TensorType::Q5_1)] = dot_q_1<true>;
  t.vec_dot[slot(TensorType::Q8_0)] = dot_q8_0;
  t.vec_dot[slot(TensorType::Q2_K)] = dot_q2_k;
  t.vec_dot[slot(TensorType::Q3_K)] = dot_q3_k;
  t.vec_dot[slot(TensorType::Q4_K)] = dot_k4<false>;
  t.vec_dot[slot(TensorType::Q5_K)] = dot_k4<true>;
  t.vec_dot[slot(TensorType::Q6_K)] = dot_q6_k;
}

}  // namespace a3s::power::kernels

// Shared helpers of the kernel tests: random data, buffers, ISA parameterisation, tolerances.
#pragma once

#include <gtest/gtest.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kernels/blocks.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "support/isa_guard.h"
#include "model/gguf/tensor_type.h"

namespace a3s::power::kernels::test {

inline const std::vector<TensorType>& weight_types() {
  static const std::vector<TensorType> t = {
      TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0, TensorType::Q4_1,
      TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0, TensorType::Q2_K, TensorType::Q3_K,
      TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_NL, TensorType::IQ4_XS};
  return t;
}

#if defined(__x86_64__)
// CPUID leaf 1 ECX bit 29.
inline bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && ((c >> 29) & 1u) != 0;
}
#endif

// Every instruction set the library knows, supported here or not.
inline std::vector<Isa> all_isas() {
  return {Isa::Scalar, Isa::Avx2, Isa::AvxVnni, Isa::Avx512};
}

inline std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : all_isas()) {
    if (isa_supported(isa)) out.push_back(isa);
  }
  return out;
}

// Reports a test of an instruction set this build or CPU lacks as skipped, with the reason.
#define A3S_SKIP_UNLESS_ISA_SUPPORTED(isa)                                                          \
  do {                                                                                               \
    if (!::a3s::power::kernels::isa_supported(isa))                                                  \
      GTEST_SKIP() << "instruction set " << ::a3s::power::kernels::isa_name(isa)                      \
                   << " is not supported by this CPU (or not compiled in)";                          \
  } while (0)

inline std::string type_param_name(const testing::TestParamInfo<TensorType>& info) {
  return type_name(info.param);
}
inline std::string isa_param_name(const testing::TestParamInfo<Isa>& info) {
  return isa_name(info.param);
}

inline size_t row_bytes(TensorType t, int64_t n) {
  auto s = row_size(t, n);
  EXPECT_TRUE(s.has_value()) << type_name(t) << " n=" << n;
  return s.value_or(0);
}

// Byte buffer aligned for any block type (vector<uint64_t> storage).
class Buffer {
 public:
  explicit Buffer(size_t bytes = 0) : storage_((bytes + 7) / 8 + 1, 0) {}
  uint8_t* data() { return reinterpret_cast<uint8_t*>(storage_.data()); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(storage_.data()); }

 private:
  std::vector<uint64_t> storage_;
};

inline std::vector<float> random_floats(std::mt19937& rng, int64_t n, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

// A random but well-formed fp16 scale in [lo, hi).
inline uint16_t random_half(std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  return fp32_to_fp16(dist(rng));
}

// Random blocks of a weight type: random quant bits, sane fp16 scales (no inf/NaN).
inline void fill_random_row(std::mt19937& rng, TensorType t, void* dst, int64_t n) {
  const size_t bytes = row_bytes(t, n);
  auto* p = static_cast<uint8_t*>(dst);
  std::uniform_int_distribution<int> byte(0, 255);
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(byte(rng));
  auto blocks = [&](auto* b) { return std::span(b, static_cast<size_t>(n / type_info(t).block_size)); };
  switch (t) {
    case TensorType::F32: {
      auto v = random_floats(rng, n);
      std::memcpy(dst, v.data(), bytes);
      break;
    }
    case TensorType::F16:
    case TensorType::BF16: {
      auto v = random_floats(rng, n);
      quantize_row(t, v.data(), dst, n);
      break;
    }
    case TensorType::Q4_0:
      for (auto& b : blocks(reinterpret_cast<BlockQ4_0*>(p))) b.d = random_half(rng, -0.1f, 0.1f);
      break;
    case TensorType::Q4_1:
      for (auto& b : blocks(reinterpret_cast<BlockQ4_1*>(p))) {
        b.d = random_half(rng, 0.0f, 0.1f);
        b.m = random_half(rng, -1.0f, 0.0f);
      }
      break;
    case TensorType::Q5_0:
      for (auto& b : blocks(reinterpret_cast<BlockQ5_0*>(p))) b.d = random_half(rng, -0.1f, 0.1f);
      break;
    case TensorType::Q5_1:
      for (auto& b : blocks(reinterpret_cast<BlockQ5_1*>(p))) {
        b.d = random_half(rng, 0.0f, 0.05f);
        b.m = random_half(rng, -1.0f, 0.0f);
      }
      break;
    case TensorType::Q8_0:
      for (auto& b : blocks(reinterpret_cast<BlockQ8_0*>(p))) b.d = random_half(rng, -0.01f, 0.01f);
      break;
    case TensorType::IQ4_NL:
      for (auto& b : blocks(reinterpret_cast<BlockIQ4NL*>(p))) b.d = random_half(rng, -0.001f, 0.001f);
      break;
    case TensorType::IQ4_XS:
      for (auto& b : blocks(reinterpret_cast<BlockIQ4XS*>(p))) b.d = random_half(rng, -0.0001f, 0.0001f);
      break;
    case TensorType::Q2_K:
      for (auto& b : blocks(reinterpret_cast<BlockQ2_K*>(p))) {
        b.d = random_half(rng, 0.0f, 0.05f);
        b.dmin = random_half(rng, 0.0f, 0.05f);
      }
      break;
    case TensorType::Q3_K:
      for (auto& b : blocks(reinterpret_cast<BlockQ3_K*>(p))) b.d = random_half(rng, -0.01f, 0.01f);
      break;
    case TensorType::Q4_K:
      for (auto& b : blocks(reinterpret_cast<BlockQ4_K*>(p))) {
        b.d = random_half(rng, 0.0f, 0.01f);
        b.dmin = random_half(rng, 0.0f, 0.01f);
      }
      break;
    case TensorType::Q5_K:
      for (auto& b : blocks(reinterpret_cast<BlockQ5_K*>(p))) {
        b.d = random_half(rng, 0.0f, 0.005f);
        b.dmin = random_half(rng, 0.0f, 0.01f);
      }
      break;
    case TensorType::Q6_K:
      for (auto& b : blocks(reinterpret_cast<BlockQ6_K*>(p))) b.d = random_half(rng, -0.001f, 0.001f);
      break;
    default:
      ADD_FAILURE() << "no random generator for " << type_name(t);
  }
}

// The bit pattern of a float: ISA paths must agree with the scalar reference bit for bit (a plain
// float == would let -0 equal +0).
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The scalar reference's dot product (the oracle every ISA path must reproduce exactly).
inline float scalar_dot(TensorType w, int64_t n, const void* w_row, const void* x_act) {
  float out = 0.0f;
  scalar_table().vec_dot[slot(w)](n, &out, w_row, x_act);
  return out;
}

// The scalar reference of one matmul output with n_tokens tokens (the batch order where the type has
// one, matmul.cpp).
inline float scalar_matmul_dot(TensorType w, int64_t n_tokens, int64_t n, const void* w_row, const void* x_act) {
  float out = 0.0f;
  const VecDotFn batch = scalar_table().vec_dot_batch[slot(w)];
  (n_tokens >= 2 && batch != nullptr ? batch : scalar_table().vec_dot[slot(w)])(n, &out, w_row, x_act);
  return out;
}

// The same with the active ISA's kernels.
inline float active_matmul_dot(TensorType w, int64_t n_tokens, int64_t n, const void* w_row, const void* x_act) {
  float out = 0.0f;
  const VecDotFn batch = active_table().vec_dot_batch[slot(w)];
  (n_tokens >= 2 && batch != nullptr ? batch : active_table().vec_dot[slot(w)])(n, &out, w_row, x_act);
  return out;
}

inline std::vector<float> dequantized(TensorType t, const void* src, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  dequantize_row(t, src, out.data(), n);
  return out;
}

// Σ a·b in double, and the magnitude Σ|x|·2·max|w| used to scale tolerances (covers the
// intermediate scale·quant and min terms of affine formats before they cancel).
struct RefDot {
  double value = 0;
  double magnitude = 0;
};
inline RefDot reference_dot(const std::vector<float>& w, const std::vector<float>& x) {
  RefDot r;
  double wmax = 0, xabs = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    r.value += static_cast<double>(w[i]) * x[i];
    wmax = std::max(wmax, std::fabs(static_cast<double>(w[i])));
    xabs += std::fabs(static_cast<double>(x[i]));
  }
  r.magnitude = 2 * wmax * xabs + 1e-30;
  return r;
}

// Expected dot product of a weight row with an activation row in llama.cpp semantics: the double
// dot of the dequantized rows, except that Q4_1/Q5_1 blocks apply their min m to the Q8_1 block sum
// s (stored as fp16, d·Σq) instead of the exact Σx.
inline RefDot expected_dot(TensorType w_type, const void* w, TensorType act, const void* x, int64_t n) {
  RefDot r = reference_dot(dequantized(w_type, w, n), dequantized(act, x, n));
  if (act == TensorType::Q8_1) {
    const auto xs = dequantized(act, x, n);
    const auto* xb = static_cast<const BlockQ8_1*>(x);
    const auto* wb = static_cast<const uint8_t*>(w);
    const size_t wbytes = type_info(w_type).block_bytes;
    for (int64_t b = 0; b < n / kQK; ++b) {
      uint16_t m_bits;  // Q4_1 and Q5_1 both store d then m
      std::memcpy(&m_bits, wb + static_cast<size_t>(b) * wbytes + 2, 2);
      double exact = 0;
      for (int j = 0; j < kQK; ++j) exact += xs[static_cast<size_t>(b * kQK + j)];
      r.value += static_cast<double>(fp16_to_fp32(m_bits)) * (fp16_to_fp32(xb[b].s) - exact);
    }
  }
  return r;
}

}  // namespace a3s::power::kernels::test

#include "engine/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/half.h"

#include "kernels/kernels.h"

namespace a3s::power::engine {

void rms_norm(const float* x, float* y, int64_t n, float eps, const float* w) {
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i] * x[i]);  // float square, double sum
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float scale = 1.0f / std::sqrt(mean + eps);
  if (w) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] * scale) * w[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale;
  }
}

namespace {
constexpr int64_t kChunk = kGluColumnGroup;  // lanes of ggml's vectorised exp (AVX-512)

// Σ of 16 floats in the order of a 512-bit horizontal add (halves, quarters, then pairs).
float chunk_sum(const float* v) {
  float h[8], q[4];
  for (int i = 0; i < 8; ++i) h[i] = v[i + 8] + v[i];
  for (int i = 0; i < 4; ++i) q[i] = h[i + 4] + h[i];
  return (q[0] + q[2]) + (q[1] + q[3]);
}
}  // namespace

void swiglu(float* gate, const float* up, int64_t n_rows, int64_t n_cols) {
  const int64_t n_vec = n_cols / kChunk * kChunk;
  float e[kChunk];
  for (int64_t r = 0; r < n_rows; ++r) {
    float* g = gate + r * n_cols;
    const float* u = up + r * n_cols;
    for (int64_t c = 0; c < n_vec; c += kChunk) {
      for (int64_t i = 0; i < kChunk; ++i) e[i] = 0.0f - g[c + i];
      kernels::exp_row(e, e, kChunk);
      for (int64_t i = 0; i < kChunk; ++i) g[c + i] = (g[c + i] / (1.0f + e[i])) * u[c + i];
    }
    for (int64_t i = n_vec; i < n_cols; ++i) g[i] = (g[i] / (1.0f + std::exp(-g[i]))) * u[i];
  }
}

namespace {
// gelu_tanh of every fp16 value, rounded to fp16 (ggml's table_gelu_f16).
const std::vector<uint16_t>& gelu_table() {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> t(65536);
    constexpr float kCoefA = 0.044715f, kSqrt2OverPi = 0.79788456080286535587989211986876f;
    for (uint32_t i = 0; i < 65536; ++i) {
      const float x = kernels::half::fp16_to_fp32(static_cast<uint16_t>(i));
      t[i] = kernels::half::fp32_to_fp16(0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoefA * x * x))));
    }
    return t;
  }();
  return table;
}
}  // namespace

void geglu(float* gate, const float* up, int64_t n_rows, int64_t n_cols) {
  const std::vector<uint16_t>& table = gelu_table();
  for (int64_t r = 0; r < n_rows; ++r) {
    float* g = gate + r * n_cols;
    const float* u = up + r * n_cols;
    for (int64_t i = 0; i < n_cols; ++i) {
      const float x = g[i];
      if (x <= -10.0f) {
        g[i] = 0.0f;
      } else if (x >= 10.0f) {
        g[i] = x * u[i];
      } else {
        g[i] = kernels::half::fp16_to_fp32(table[kernels::half::fp32_to_fp16(x)]) * u[i];
      }
    }
  }
}

void add_inplace(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void softmax_scaled(float* x, int64_t n, float scale, int64_t n_masked) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = n_masked; i < n; ++i) {
    x[i] *= scale;
    mx = std::max(mx, x[i]);
  }
  // The padded tail (masked entries) contributes exact zeros to the chunk sums.
  const int64_t n_pad = (n + kKvPad - 1) / kKvPad * kKvPad;
  double sum = 0.0;
  float v[kChunk];
  for (int64_t c = 0; c < n_pad; c += kChunk) {
    const int64_t m = std::clamp<int64_t>(n - c, 0, kChunk);
    for (int64_t i = 0; i < m; ++i) v[i] = x[c + i] - mx;
    kernels::exp_row(v, v, m);
    for (int64_t i = 0; i < m && c + i < n_masked; ++i) v[i] = 0.0f;
    for (int64_t i = m; i < kChunk; ++i) v[i] = 0.0f;
    for (int64_t i = 0; i < m; ++i) x[c + i] = v[i];
    sum += static_cast<double>(chunk_sum(v));
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace a3s::power::engine

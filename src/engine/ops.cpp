#include "engine/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
constexpr int64_t kChunk = 16;  // lanes of ggml's vectorised exp (AVX-512)

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

void add_inplace(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void softmax_scaled(float* x, int64_t n, float scale) {
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
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
    for (int64_t i = m; i < kChunk; ++i) v[i] = 0.0f;
    for (int64_t i = 0; i < m; ++i) x[c + i] = v[i];
    sum += static_cast<double>(chunk_sum(v));
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace a3s::power::engine

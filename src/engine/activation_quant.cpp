#include "engine/activation_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "kernels/kernels.h"

namespace a3s::power::engine {
namespace {

constexpr int kBlock = 32;

// One 32-value block: scale d (float) and the int8 values; returns Σq.
int quantize_block(const float* x, float* d_out, int8_t* q) {
  float amax = 0.0f;
  for (int j = 0; j < kBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
  int sum = 0;
  for (int j = 0; j < kBlock; ++j) {
    const int v = static_cast<int>(std::nearbyint(x[j] * id));  // default mode: half to even
    q[j] = static_cast<int8_t>(v);
    sum += v;
  }
  *d_out = d;
  return sum;
}

void quantize_row(TensorType act, const float* x, uint8_t* dst, int64_t n) {
  for (int64_t b = 0; b < n / kBlock; ++b) {
    float d;
    if (act == TensorType::Q8_0) {
      uint8_t* blk = dst + b * 34;
      const int sum = quantize_block(x + b * kBlock, &d, reinterpret_cast<int8_t*>(blk + 2));
      (void)sum;
      const uint16_t dh = kernels::fp32_to_fp16(d);
      std::memcpy(blk, &dh, 2);
    } else {
      uint8_t* blk = dst + b * 36;
      const int sum = quantize_block(x + b * kBlock, &d, reinterpret_cast<int8_t*>(blk + 4));
      const uint16_t dh = kernels::fp32_to_fp16(d);
      const uint16_t sh = kernels::fp32_to_fp16(d * static_cast<float>(sum));
      std::memcpy(blk, &dh, 2);
      std::memcpy(blk + 2, &sh, 2);
    }
  }
}

}  // namespace

bool backend_matched_quantizer(TensorType act) { return act == TensorType::Q8_0 || act == TensorType::Q8_1; }

void quantize_activations(TensorType act, const float* X, void* dst, int64_t n_rows, int64_t n_cols,
                          ThreadPool& pool) {
  const size_t row_bytes = static_cast<size_t>(n_cols / kBlock) * (act == TensorType::Q8_0 ? 34 : 36);
  auto* out = static_cast<uint8_t*>(dst);
  const int n_tasks = static_cast<int>(std::min<int64_t>(n_rows, pool.active_threads()));
  auto body = [&](int task, int n) {
    for (int64_t r = task; r < n_rows; r += n) quantize_row(act, X + r * n_cols, out + r * row_bytes, n_cols);
  };
  if (n_rows * n_cols < (1 << 14)) {
    body(0, 1);
  } else {
    pool.run(n_tasks, std::ref(body));
  }
}

}  // namespace a3s::power::engine

#include "engine/linear.h"

#include "engine/activation_quant.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {
namespace {
// Below this many multiply-adds a matmul runs on the calling thread: waking workers costs more.
constexpr int64_t kParallelWork = 1 << 16;
}  // namespace

const void* ActivationCache::get(const float* X, int64_t n_tokens, int64_t n_cols, TensorType type,
                                 ThreadPool& pool) {
  if (type == TensorType::F32) return X;
  if (src_ != X || n_tokens_ != n_tokens || n_cols_ != n_cols || type_ != type) {
    if (backend_matched_quantizer(type)) {
      quantize_activations(type, X, buf_, n_tokens, n_cols, pool);
    } else {
      kernels::quantize_rows(type, X, buf_, n_tokens, n_cols, n_tokens * n_cols >= kParallelWork ? &pool : nullptr);
    }
    src_ = X;
    n_tokens_ = n_tokens;
    n_cols_ = n_cols;
    type_ = type;
  }
  return buf_;
}

namespace {
ThreadPool& serial_pool() {
  thread_local ThreadPool pool(1);  // no workers: run() executes inline
  return pool;
}
}  // namespace

void linear(const weights::TensorDesc& w, const uint8_t* data, const float* X, int64_t n_tokens, float* Y,
            ActivationCache& act, ThreadPool& pool, const PackedWeights::Tensor* packed) {
  const TensorType at = kernels::vec_dot_type(w.type);
  const void* xa = act.get(X, n_tokens, w.ne[0], at, pool);
  ThreadPool& run_on = w.ne[0] * w.ne[1] * n_tokens < kParallelWork ? serial_pool() : pool;
  if (packed != nullptr &&
      kernels::matmul_packed(packed->isa, w.type, packed->bytes, w.ne[1], w.ne[0], xa, n_tokens, Y, run_on))
    return;
  kernels::matmul(w.type, data, w.ne[1], w.ne[0], xa, n_tokens, Y, run_on);
}

}  // namespace a3s::power::engine

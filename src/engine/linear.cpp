#include "engine/linear.h"

#include "kernels/kernels.h"

namespace a3s::power::engine {

const void* ActivationCache::get(const float* X, int64_t n_tokens, int64_t n_cols, TensorType type,
                                 ThreadPool& pool) {
  if (type == TensorType::F32) return X;
  if (src_ != X || n_tokens_ != n_tokens || n_cols_ != n_cols || type_ != type) {
    kernels::quantize_rows(type, X, buf_, n_tokens, n_cols, &pool);
    src_ = X;
    n_tokens_ = n_tokens;
    n_cols_ = n_cols;
    type_ = type;
  }
  return buf_;
}

void linear(const weights::TensorDesc& w, const uint8_t* data, const float* X, int64_t n_tokens, float* Y,
            ActivationCache& act, ThreadPool& pool) {
  const TensorType at = kernels::vec_dot_type(w.type);
  const void* xa = act.get(X, n_tokens, w.ne[0], at, pool);
  kernels::matmul(w.type, data, w.ne[1], w.ne[0], xa, n_tokens, Y, pool);
}

}  // namespace a3s::power::engine

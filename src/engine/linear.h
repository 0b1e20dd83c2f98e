// Linear layers: Y = X · Wᵀ for a GGUF weight tensor, with the activations first converted to the
// weight's vec_dot_type (Q8_0, Q8_1, Q8_K, F16, BF16 or F32) exactly as llama.cpp's CPU backend does.
#pragma once

#include <cstdint>

#include "base/thread_pool.h"
#include "engine/packed_weights.h"
#include "model/sources/weight_source.h"

namespace a3s::power::engine {

// Holds the converted activations of one input matrix so several projections of the same input
// (Q/K/V, gate/up) convert it once. `buf` must hold the largest converted input (see
// ModelImpl::max_act_bytes).
class ActivationCache {
 public:
  explicit ActivationCache(uint8_t* buf = nullptr) : buf_(buf) {}
  void set_buffer(uint8_t* buf) { buf_ = buf; invalidate(); }
  // Forget what the buffer holds (call whenever the source matrix changes).
  void invalidate() { src_ = nullptr; }
  // X [n_tokens, n_cols] converted to `type` (X itself for F32).
  const void* get(const float* X, int64_t n_tokens, int64_t n_cols, TensorType type, ThreadPool& pool);

 private:
  uint8_t* buf_;
  const float* src_ = nullptr;
  int64_t n_tokens_ = 0, n_cols_ = 0;
  TensorType type_ = TensorType::F32;
};

// Y [n_tokens, w.ne[1]] = X [n_tokens, w.ne[0]] · Wᵀ, W being `w` with bytes `data`; from `packed`
// (packed_weights.h) instead when it is given and the active ISA reads it (the same bits).
void linear(const weights::TensorDesc& w, const uint8_t* data, const float* X, int64_t n_tokens, float* Y,
            ActivationCache& act, ThreadPool& pool, const PackedWeights::Tensor* packed = nullptr);

}  // namespace a3s::power::engine

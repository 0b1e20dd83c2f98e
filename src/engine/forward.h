// The transformer forward pass of one batch of tokens (prefill or decode), written once against
// the architecture's graph description (arch.h):
//   x = embed(tokens)
//   per block: h = RMSNorm(x)·w_attn_norm; q,k,v = h·Wq,Wk,Wv (+biases); RoPE(q,k); cache k,v;
//              x += Attention(q, K, V)·Wo;  h = RMSNorm(x)·w_ffn_norm;
//              x += (silu(h·Wgate) ⊙ h·Wup)·Wdown
//   logits = RMSNorm(x)·w_out_norm · Woutᵀ   (only for the rows asked for)
// Weights come only through the model's WeightSource (one layer leased at a time). Buffers are
// sized once for n_batch tokens; a forward call allocates nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "a3s/power/engine.h"
#include "engine/attention.h"
#include "engine/kv_cache.h"
#include "engine/linear.h"
#include "engine/rope.h"

namespace a3s::power::engine {

class ModelImpl;

class Forward {
 public:
  Forward(const ModelImpl& model, int n_ctx, int n_batch);

  int n_batch() const { return n_batch_; }

  // Runs tokens (at most n_batch) at positions pos0 … pos0+n-1, storing their K/V in `kv`.
  // Writes logits for the last `n_out` tokens of the batch (0 ≤ n_out ≤ n) into `logits`
  // ([n_out, n_vocab] row-major).
  void run(KvCache& kv, std::span<const Token> tokens, int pos0, int n_out, float* logits);

  // Zeroes every activation buffer (they hold data derived from the last request's tokens).
  void wipe() noexcept;

 private:
  void embed(std::span<const Token> tokens);
  void layer(KvCache& kv, int il, int n, int pos0);
  void head(int n, int n_out, float* logits);
  const float* small_vector(const uint8_t* data, int id, float* dst);  // dequantized 1-D tensor

  const ModelImpl& m_;
  int n_batch_;
  Rope rope_;
  Attention attn_;
  ActivationCache act_;
  std::vector<float> x_, xn_, q_, k_, v_, att_, o_, gate_, up_;
  std::vector<float> vec_a_, vec_b_;     // dequantized norm weights / biases
  std::vector<float> rope_cache_;        // [n_rot]
  std::vector<uint8_t> act_buf_;         // converted activations
  std::vector<uint8_t> row_scratch_;     // embedding / head rows for copying weight sources
  std::vector<float> head_out_;          // [n_batch, head chunk] when the head is read in chunks
  int64_t head_chunk_ = 0;
};

}  // namespace a3s::power::engine

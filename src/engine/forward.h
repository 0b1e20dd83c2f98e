// The transformer forward pass of one batch of tokens (prefill or decode), written once against
// the architecture's graph description (arch.h):
//   x = embed(tokens)
//   per block: h = RMSNorm(x)·w_attn_norm; q,k,v = h·Wq,Wk,Wv (+biases); RoPE(q,k); cache k,v;
//              x += Attention(q, K, V)·Wo;  h = RMSNorm(x)·w_ffn_norm;
//              x += (silu(h·Wgate) ⊙ h·Wup)·Wdown, or with experts (mixture of experts):
//              x += Σ_j w_j·FFN_{e_j}(h) over the top-k experts e_j of softmax(h·Wrouter),
//              w renormalised over the k
//   logits = RMSNorm(x)·w_out_norm · Woutᵀ   (only for the rows asked for)
// Weights come only through the model's WeightSource (one layer leased at a time). Buffers are
// sized once for n_batch tokens; a forward call allocates nothing (except when a step asks for more
// logit rows or a longer context than any step before).
//
// Batches. One call runs one or more segments — consecutive tokens of one sequence each, at their
// own positions in their own KV cache — as one batch: every weight matrix is read once for all the
// batch's tokens (decode steps of several sequences, prefill chunks), while RoPE and attention use
// each token's own position and cache. A token's logits do not depend on which other tokens share
// its batch or how its sequence was split into chunks (batch invariance: every per-token operation
// and every matmul row is computed the same way whatever the batch), except for BF16 weights, whose
// multi-token matmul follows llama.cpp's prompt-processing order (kernels.h).
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
struct LayerTensors;

class Forward {
 public:
  Forward(const ModelImpl& model, int n_ctx, int n_batch);

  int n_batch() const { return n_batch_; }

  // Consecutive tokens of one sequence: positions pos0 … pos0+n-1 of `kv` (reserved by the caller
  // for them). Logits of the segment's last `n_out` tokens (0 ≤ n_out ≤ n) go to `logits`
  // ([n_out, n_vocab] row-major). With `hidden`, every token's final hidden state after the output
  // norm (what embeddings are pooled from) goes there too ([n, n_embd] row-major).
  struct Segment {
    KvCache* kv = nullptr;
    std::span<const Token> tokens;
    int pos0 = 0;
    int n_out = 0;
    float* logits = nullptr;
    float* hidden = nullptr;
  };

  // Runs the segments as one batch (together at most n_batch tokens, each sequence at most once),
  // storing their K/V in their caches. Throws Error(codes::kInternal) when the batch is out of range.
  void run(std::span<const Segment> segments);
  void run(KvCache& kv, std::span<const Token> tokens, int pos0, int n_out, float* logits) {
    const Segment s{&kv, tokens, pos0, n_out, logits};
    run(std::span<const Segment>(&s, 1));
  }

  // Zeroes every activation buffer (they hold data derived from the last requests' tokens). Only
  // the rows used since the last wipe are touched, so a wipe after decode steps is cheap.
  void wipe() noexcept;

 private:
  void embed(std::span<const Segment> segments);
  void layer(int il, int n);
  void head(std::span<const Segment> segments);
  const float* small_vector(const uint8_t* data, int id, float* dst);  // dequantized 1-D tensor
  // o_ rows = RMSNorm(o_ rows) · the block's `role` weight, when the block has one (gemma3's post-norms).
  void post_norm(const LayerTensors& lt, LayerRole role, const weights::LayerLease& lease, int n);
  // y [n, rows] = xn_ [n, n_embd] · (rows [row0, row0 + rows) of w)ᵀ: part of a fused tensor as its own matrix.
  // Rows [row0, row0 + rows) of `w` (a fused matrix) against the normed input; from their panels when
  // `w` is packed and row0 starts a panel.
  void linear_rows(const weights::TensorDesc& w, const uint8_t* data, const PackedWeights::Tensor* packed,
                   size_t row0, size_t rows, int n, float* y);
  // RoPE of q_ and k_ [n rows] in place (and the query scale), then k_ and v_ into the rows' KV
  // caches at layer il, across the pool.
  void rope_and_store(int il, int n, const Rope& rope);
  // gate_ [n, ffn_width] = the gated activation (SwiGLU or GeGLU) of gate_ and up_, across the pool.
  void glu(int n);
  // o_ [n, n_embd] = the mixture-of-experts FFN of xn_ (router, top-k experts, weighted sum).
  void moe_ffn(const LayerTensors& lt, const weights::LayerLease& lease, int n);

  const ModelImpl& m_;
  int n_batch_;
  Rope rope_;
  Rope rope_swa_;  // sliding-window layers' RoPE (their own base, no scaling); = rope_'s settings otherwise
  Attention attn_;
  ActivationCache act_;
  std::vector<float> x_, xn_, q_, k_, v_, att_, o_, gate_, up_;
  std::vector<float> vec_a_, vec_b_;     // dequantized norm weights / biases
  // Mixture of experts (empty for dense models).
  std::vector<float> router_;            // [n_batch, n_expert] router probabilities
  std::vector<int> chosen_;              // [n_batch, n_expert_used] each token's experts, best first
  std::vector<float> chosen_w_;          // [n_batch, n_expert_used] their normalised weights
  std::vector<float> expert_in_;         // [n_batch, n_embd] the input rows routed to one expert
  std::vector<float> expert_out_;        // [n_batch, n_expert_used, n_embd] weighted expert outputs
  std::vector<int> routed_;              // [n_batch] batch rows routed to the current expert
  std::vector<float> rope_cache_;        // [pool size, n_rot]
  std::vector<uint8_t> act_buf_;         // converted activations
  std::vector<uint8_t> row_scratch_;     // embedding / head rows for copying weight sources
  std::vector<float> head_out_;          // [n_batch, head chunk] when the head is read in chunks
  std::vector<float> logits_;            // [rows, n_vocab] when several segments want logits
  std::vector<AttentionRow> rows_;       // [n] the cache and position of each batch token
  std::vector<float*> out_rows_;         // destination of each logit row
  int64_t head_chunk_ = 0;
  int used_rows_ = 0;                    // batch rows written since the last wipe
};

}  // namespace a3s::power::engine

// Causal multi-head self-attention over the KV cache, with grouped-query attention (GQA).
//
// For token t at position p (p = pos0 + t) and query head h, with KV head g = h / (n_head/n_head_kv):
//   s_j = (q_h · k_{g,j}) / sqrt(head_dim) for j = 0 … p,   a = softmax(s),   out_h = Σ_j a_j v_{g,j}
// (With HParams::q_scale the caller has already multiplied q by it, and s_j = q_h · k_{g,j}.)
// With a sliding window of W positions, only j > p - W are attended to (the others get weight 0).
// Numerics follow llama.cpp with an fp16 cache: q is rounded to fp16 for q·k, the probabilities are
// rounded to fp16 for the weighted sum of V. Work is split over (token, KV head) pairs on the pool,
// each taking the query heads that share its KV head (up to kHeadsPerItem at a time) together, so a
// K or V row is read from memory once for all of them (kernels.h, the several-vector
// dot_f16_lanes16); every head's values are the bits of computing it alone.
// Each token's result depends only on its own query, position and sequence (its KV cache), never on
// the other tokens of the call, so a token gives the same bits alone, inside a prefill chunk or in a
// batched decode step with other sequences (batch invariance).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "engine/hparams.h"
#include "engine/kv_cache.h"

namespace a3s::power::engine {

// Where one query token attends: its sequence's cache and its position there (it sees 0 … pos).
struct AttentionRow {
  KvCache* kv;  // read only here; the forward pass stores the token's K/V through it
  int pos;
};

class Attention {
 public:
  static constexpr int kHeadsPerItem = 8;  // query heads of one KV head computed together
  // Scratch for up to `n_slots` parallel workers over a cache of n_ctx positions.
  Attention(const HParams& hp, int n_ctx, int n_slots);

  // Grows the scratch for caches of up to n_ctx positions (no-op when it is large enough).
  void reserve_ctx(int n_ctx);

  // q: [rows.size(), n_head*head_dim] (RoPE applied); out: same shape. Row t attends over positions
  // [0, rows[t].pos] of layer il of rows[t].kv, which must be in that cache; every pos < n_ctx.
  // window > 0: sliding-window attention over the `window` most recent positions.
  void run(std::span<const AttentionRow> rows, int il, const float* q, float* out, ThreadPool& pool,
           int window = 0);

  // Zeroes the scratch (scores and probabilities of the last request).
  void wipe() noexcept;

 private:
  int n_head_, n_head_kv_, head_dim_, n_ctx_, n_slots_;
  float scale_;
  int heads_per_item_;            // min(kHeadsPerItem, the query heads per KV head)
  std::vector<float> scores_;     // [n_slots, heads_per_item, n_ctx]
  std::vector<uint16_t> probs_;   // [n_slots, heads_per_item, n_ctx] fp16
  std::vector<uint16_t> q16_;     // [n_slots, heads_per_item, head_dim] fp16
};

}  // namespace a3s::power::engine

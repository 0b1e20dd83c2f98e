#include "engine/attention.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "crypto/secure_memory.h"
#include "engine/ops.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {

Attention::Attention(const HParams& hp, int n_ctx, int n_slots)
    : n_head_(hp.n_head),
      n_head_kv_(hp.n_head_kv),
      head_dim_(hp.head_dim),
      n_ctx_(n_ctx),
      n_slots_(std::max(1, n_slots)),
      scale_(hp.q_scale > 0.0f ? 1.0f : 1.0f / std::sqrt(static_cast<float>(hp.head_dim))),
      scores_(static_cast<size_t>(n_slots_) * n_ctx),
      probs_(static_cast<size_t>(n_slots_) * n_ctx),
      q16_(static_cast<size_t>(n_slots_) * hp.head_dim) {}

void Attention::reserve_ctx(int n_ctx) {
  if (n_ctx <= n_ctx_) return;
  crypto::wipe_allocation(scores_);
  crypto::wipe_allocation(probs_);
  scores_.assign(static_cast<size_t>(n_slots_) * n_ctx, 0.0f);
  probs_.assign(static_cast<size_t>(n_slots_) * n_ctx, 0);
  n_ctx_ = n_ctx;
}

void Attention::run(std::span<const AttentionRow> rows, int il, const float* q, float* out, ThreadPool& pool,
                    int window) {
  const int n_tokens = static_cast<int>(rows.size());
  const int n_work = n_tokens * n_head_;
  // Small problems (short decode steps) run on the calling thread: waking workers costs more.
  int64_t positions = 0;
  for (const AttentionRow& r : rows) positions += r.pos + 1;
  const int64_t macs = positions * n_head_ * head_dim_ * 2;
  // A stepped-down pool (thread_pool.h) runs one task over every (token, head) pair.
  const int n_tasks = macs < (1 << 16) ? 1 : std::min({n_slots_, pool.active_threads(), n_work});
  const int n_gqa = n_head_ / n_head_kv_;
  const size_t n_q = static_cast<size_t>(n_head_) * head_dim_;
  // The body is passed by reference so std::function never allocates (no allocation per decode step).
  auto body = [&](int slot, int n_slots) {
    float* s = scores_.data() + static_cast<size_t>(slot) * n_ctx_;
    uint16_t* p16 = probs_.data() + static_cast<size_t>(slot) * n_ctx_;
    uint16_t* qh = q16_.data() + static_cast<size_t>(slot) * head_dim_;
    for (int w = slot; w < n_work; w += n_slots) {
      const int t = w / n_head_, h = w % n_head_;
      const KvCache& kv = *rows[static_cast<size_t>(t)].kv;
      const int n_kv = rows[static_cast<size_t>(t)].pos + 1;  // causal: positions 0 … p
      const int g = h / n_gqa;
      const float* qrow = q + static_cast<size_t>(t) * n_q + static_cast<size_t>(h) * head_dim_;
      kernels::fp32_to_fp16_row(qrow, qh, head_dim_);
      // K scores block by block: a block's K rows of the head lie n_embd_kv apart.
      const int64_t d_kv = kv.n_embd_kv();
      for (int b = 0, j0 = 0; j0 < n_kv; ++b, j0 += kKvBlockTokens)
        kernels::dot_f16_lanes16_rows(kv.k_block(il, b) + static_cast<size_t>(g) * head_dim_, d_kv,
                                      std::min(kKvBlockTokens, n_kv - j0), qh, head_dim_, head_dim_, s + j0);
      // A sliding window masks the positions before the window's start (weight 0; llama.cpp's mask).
      const int n_masked = window > 0 ? std::max(0, n_kv - window) : 0;
      softmax_scaled(s, n_kv, scale_, n_masked);
      kernels::fp32_to_fp16_row(s, p16, n_kv);
      float* o = out + static_cast<size_t>(t) * n_q + static_cast<size_t>(h) * head_dim_;
      const int64_t n_kv_padded = (n_kv + kKvPad - 1) / kKvPad * kKvPad;
      kernels::dot_f16_lanes16_pages(kv.v_pages(il, g * head_dim_), head_dim_, p16, n_kv, n_kv_padded, o);
    }
  };
  pool.run(n_tasks, std::ref(body));
}

void Attention::wipe() noexcept {
  crypto::wipe_allocation(scores_);
  crypto::wipe_allocation(probs_);
  crypto::wipe_allocation(q16_);
}

}  // namespace a3s::power::engine

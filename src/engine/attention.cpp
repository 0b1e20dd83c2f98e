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
      heads_per_item_(std::clamp(hp.n_head / std::max(1, hp.n_head_kv), 1, kHeadsPerItem)),
      scores_(static_cast<size_t>(n_slots_) * heads_per_item_ * n_ctx),
      probs_(static_cast<size_t>(n_slots_) * heads_per_item_ * n_ctx),
      q16_(static_cast<size_t>(n_slots_) * heads_per_item_ * hp.head_dim) {}

void Attention::reserve_ctx(int n_ctx) {
  if (n_ctx <= n_ctx_) return;
  crypto::wipe_allocation(scores_);
  crypto::wipe_allocation(probs_);
  scores_.assign(static_cast<size_t>(n_slots_) * heads_per_item_ * n_ctx, 0.0f);
  probs_.assign(static_cast<size_t>(n_slots_) * heads_per_item_ * n_ctx, 0);
  n_ctx_ = n_ctx;
}

void Attention::run(std::span<const AttentionRow> rows, int il, const float* q, float* out, ThreadPool& pool,
                    int window) {
  const int n_tokens = static_cast<int>(rows.size());
  const int n_gqa = n_head_ / n_head_kv_;
  // A work item: one token, one KV head, and up to heads_per_item_ of the query heads that share it.
  const int items_per_group = (n_gqa + heads_per_item_ - 1) / heads_per_item_;
  const int items_per_token = n_head_kv_ * items_per_group;
  const int n_work = n_tokens * items_per_token;
  // Small problems (short decode steps) run on the calling thread: waking workers costs more.
  int64_t positions = 0;
  for (const AttentionRow& r : rows) positions += r.pos + 1;
  const int64_t macs = positions * n_head_ * head_dim_ * 2;
  // A stepped-down pool (thread_pool.h) runs one task over every work item.
  const int n_tasks = macs < (1 << 16) ? 1 : std::min({n_slots_, pool.active_threads(), n_work});
  const size_t n_q = static_cast<size_t>(n_head_) * head_dim_;
  // The body is passed by reference so std::function never allocates (no allocation per decode step).
  auto body = [&](int slot, int n_slots) {
    const size_t per_slot = static_cast<size_t>(heads_per_item_);
    float* s0 = scores_.data() + static_cast<size_t>(slot) * per_slot * n_ctx_;
    uint16_t* p0 = probs_.data() + static_cast<size_t>(slot) * per_slot * n_ctx_;
    uint16_t* q0 = q16_.data() + static_cast<size_t>(slot) * per_slot * head_dim_;
    const uint16_t* qh[kHeadsPerItem];
    const uint16_t* ph[kHeadsPerItem];
    float* sh[kHeadsPerItem];
    float* oh[kHeadsPerItem];
    for (int w = slot; w < n_work; w += n_slots) {
      const int t = w / items_per_token, item = w % items_per_token;
      const int g = item / items_per_group;
      const int h0 = g * n_gqa + (item % items_per_group) * heads_per_item_;
      const int nh = std::min(heads_per_item_, (g + 1) * n_gqa - h0);
      const KvCache& kv = *rows[static_cast<size_t>(t)].kv;
      const int n_kv = rows[static_cast<size_t>(t)].pos + 1;  // causal: positions 0 … p
      for (int i = 0; i < nh; ++i) {
        uint16_t* qi = q0 + static_cast<size_t>(i) * head_dim_;
        kernels::fp32_to_fp16_row(q + static_cast<size_t>(t) * n_q + static_cast<size_t>(h0 + i) * head_dim_, qi,
                                  head_dim_);
        qh[i] = qi;
        sh[i] = s0 + static_cast<size_t>(i) * n_ctx_;
      }
      // K scores block by block: a block's K rows of the head lie n_embd_kv apart.
      const int64_t d_kv = kv.n_embd_kv();
      for (int b = 0, j0 = 0; j0 < n_kv; ++b, j0 += kKvBlockTokens) {
        float* sj[kHeadsPerItem];
        for (int i = 0; i < nh; ++i) sj[i] = sh[i] + j0;
        kernels::dot_f16_lanes16_rows(kv.k_block(il, b) + static_cast<size_t>(g) * head_dim_, d_kv,
                                      std::min(kKvBlockTokens, n_kv - j0), qh, nh, head_dim_, head_dim_, sj);
      }
      // A sliding window masks the positions before the window's start (weight 0; llama.cpp's mask).
      const int n_masked = window > 0 ? std::max(0, n_kv - window) : 0;
      for (int i = 0; i < nh; ++i) {
        softmax_scaled(sh[i], n_kv, scale_, n_masked);
        uint16_t* pi = p0 + static_cast<size_t>(i) * n_ctx_;
        kernels::fp32_to_fp16_row(sh[i], pi, n_kv);
        ph[i] = pi;
        oh[i] = out + static_cast<size_t>(t) * n_q + static_cast<size_t>(h0 + i) * head_dim_;
      }
      const int64_t n_kv_padded = (n_kv + kKvPad - 1) / kKvPad * kKvPad;
      kernels::dot_f16_lanes16_pages(kv.v_pages(il, g * head_dim_), head_dim_, ph, nh, n_kv, n_kv_padded, oh);
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

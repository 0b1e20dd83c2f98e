#include "engine/attention.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "crypto/secure_memory.h"
#include "engine/ops.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {
namespace {

// K rows requested ahead of the one being scored. A head's K rows lie n_embd_kv · 2 bytes apart (a
// page or more in large models), where the hardware prefetcher does not follow, so without this every
// row is a cache miss waited for in turn. (A head's V columns are read in address order.)
constexpr int kPrefetchRows = 4;

void prefetch_bytes(const void* p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o);
}

}  // namespace

Attention::Attention(const HParams& hp, int n_ctx, int n_slots)
    : n_head_(hp.n_head),
      n_head_kv_(hp.n_head_kv),
      head_dim_(hp.head_dim),
      n_ctx_(n_ctx),
      n_slots_(std::max(1, n_slots)),
      scale_(1.0f / std::sqrt(static_cast<float>(hp.head_dim))),
      scores_(static_cast<size_t>(n_slots_) * n_ctx),
      probs_(static_cast<size_t>(n_slots_) * n_ctx),
      q16_(static_cast<size_t>(n_slots_) * hp.head_dim) {}

void Attention::run(const KvCache& kv, int il, const float* q, int n_tokens, int pos0, float* out,
                    ThreadPool& pool) {
  const int n_work = n_tokens * n_head_;
  // Small problems (short decode steps) run on the calling thread: waking workers costs more.
  const int64_t macs = static_cast<int64_t>(n_work) * (pos0 + n_tokens) * head_dim_ * 2;
  const int n_tasks = macs < (1 << 16) ? 1 : std::min(n_slots_, n_work);
  const int n_gqa = n_head_ / n_head_kv_;
  const size_t n_q = static_cast<size_t>(n_head_) * head_dim_;
  // The body is passed by reference so std::function never allocates (no allocation per decode step).
  auto body = [&](int slot, int n_slots) {
    float* s = scores_.data() + static_cast<size_t>(slot) * n_ctx_;
    uint16_t* p16 = probs_.data() + static_cast<size_t>(slot) * n_ctx_;
    uint16_t* qh = q16_.data() + static_cast<size_t>(slot) * head_dim_;
    for (int w = slot; w < n_work; w += n_slots) {
      const int t = w / n_head_, h = w % n_head_;
      const int n_kv = pos0 + t + 1;  // causal: positions 0 … p
      const int g = h / n_gqa;
      const float* qrow = q + static_cast<size_t>(t) * n_q + static_cast<size_t>(h) * head_dim_;
      kernels::fp32_to_fp16_row(qrow, qh, head_dim_);
      const size_t k_off = static_cast<size_t>(g) * head_dim_;
      const size_t row_bytes = static_cast<size_t>(head_dim_) * sizeof(uint16_t);
      for (int j = 0; j < std::min(kPrefetchRows, n_kv); ++j) prefetch_bytes(kv.k_row(il, j) + k_off, row_bytes);
      for (int j = 0; j < n_kv; ++j) {
        if (j + kPrefetchRows < n_kv) prefetch_bytes(kv.k_row(il, j + kPrefetchRows) + k_off, row_bytes);
        s[j] = kernels::dot_f16_lanes16(kv.k_row(il, j) + k_off, qh, head_dim_, head_dim_);
      }
      softmax_scaled(s, n_kv, scale_);
      kernels::fp32_to_fp16_row(s, p16, n_kv);
      float* o = out + static_cast<size_t>(t) * n_q + static_cast<size_t>(h) * head_dim_;
      const int64_t n_kv_padded = (n_kv + kKvPad - 1) / kKvPad * kKvPad;
      for (int d = 0; d < head_dim_; ++d)
        o[d] = kernels::dot_f16_lanes16(kv.v_col(il, g * head_dim_ + d), p16, n_kv, n_kv_padded);
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

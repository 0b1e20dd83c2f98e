#include "engine/memory_plan.h"

#include <algorithm>
#include <string>

#include "a3s/power/error.h"
#include "base/setting_names.h"

namespace a3s::power::engine {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr int kCtxGranule = 32;  // contexts are multiples of the KV padding
constexpr int kMinCtx = 32;

std::string mib(uint64_t b) { return std::to_string((b + kMiB - 1) / kMiB) + " MiB"; }

}  // namespace

uint64_t activation_bytes_per_token(const HParams& hp, bool stream) {
  uint64_t floats = 3ull * hp.n_embd + 2ull * hp.n_embd_q() + 2ull * hp.n_embd_kv() + 2ull * hp.ffn_width();
  // Mixture of experts: router logits, each token's expert outputs, the gathered input rows.
  if (hp.n_expert > 0) floats += static_cast<uint64_t>(hp.n_expert) + (hp.n_expert_used + 1ull) * hp.n_embd;
  // Quantized activation rows are at most ~1.1 bytes per value of the widest input (the FFN's).
  const uint64_t act = static_cast<uint64_t>(std::max({hp.n_embd, hp.n_embd_q(), hp.ffn_width()})) * 2;
  return floats * 4 + act + (stream ? static_cast<uint64_t>(kHeadChunkRows) * 4 : 0);
}

MemoryPlan plan_memory(const HParams& hp, const std::vector<weights::TensorDesc>& tensors, int output_id,
                       int tok_embd_id, const ModelOptions& opts, int n_threads, uint64_t baseline_bytes,
                       uint64_t resident_extra_bytes) {
  // Streaming holds two of the largest block tensor, and one plane (one expert) of stacked ones.
  uint64_t all = resident_extra_bytes, largest_block = 0, largest_plane = 0;
  for (const weights::TensorDesc& d : tensors) {
    all += d.size_bytes;
    if (d.layer < 0) continue;
    if (d.stacked())
      largest_plane = std::max(largest_plane, d.plane_bytes());
    else
      largest_block = std::max(largest_block, d.size_bytes);
  }
  const weights::TensorDesc& out = tensors.at(static_cast<size_t>(output_id));
  const uint64_t streamed = 2 * largest_block + largest_plane +
                            out.row_bytes * static_cast<uint64_t>(std::min<int64_t>(kHeadChunkRows, out.n_rows())) +
                            tensors.at(static_cast<size_t>(tok_embd_id)).row_bytes;
  const uint64_t per_position =
      static_cast<uint64_t>(hp.n_layer) * hp.n_embd_kv() * 2 * 2 + static_cast<uint64_t>(std::max(1, n_threads)) * 6;
  const uint64_t budget = opts.memory_budget;

  auto fixed = [&](WeightsMode m, int n_batch) {
    return baseline_bytes + (m == WeightsMode::Stream ? streamed : all) +
           static_cast<uint64_t>(n_batch) * activation_bytes_per_token(hp, m == WeightsMode::Stream);
  };

  MemoryPlan p;
  p.weights = opts.weights == WeightsMode::Stream ? WeightsMode::Stream : WeightsMode::Resident;
  p.n_batch = opts.n_batch;
  if (opts.weights == WeightsMode::Auto && budget > 0 &&
      fixed(WeightsMode::Resident, opts.n_batch) + per_position * kMinCtx > budget)
    p.weights = WeightsMode::Stream;
  const bool stream = p.weights == WeightsMode::Stream;
  // Streaming under a budget: the largest power-of-two batch (≤ the requested one) whose buffers take
  // at most 1/8 of the budget.
  auto stream_batch = [&](uint64_t b_budget) {
    const uint64_t per_token = activation_bytes_per_token(hp, true);
    int b = 1;
    while (b * 2 <= opts.n_batch && static_cast<uint64_t>(b) * 2 * per_token <= b_budget / 8) b *= 2;
    return std::min(b, opts.n_batch);
  };
  if (stream && budget > 0) p.n_batch = stream_batch(budget);
  p.weight_bytes = stream ? streamed : all;
  p.activation_bytes = static_cast<uint64_t>(p.n_batch) * activation_bytes_per_token(hp, stream);
  p.bytes_per_position = per_position;
  if (budget == 0) return p;

  const uint64_t need = fixed(p.weights, p.n_batch);
  if (need + per_position * kMinCtx > budget) {
    // The smallest budget that works: with streaming a larger budget also allows a larger batch, so
    // grow the candidate until the batch it allows fits in it (the batch only doubles a few times).
    uint64_t least = need + per_position * kMinCtx;
    for (uint64_t b = 0; stream && b != least;) {
      b = least;
      least = std::max(b, fixed(p.weights, stream_batch(b)) + per_position * kMinCtx);
    }
    // Whole MiB, as printed: a budget of the printed size must work.
    least = (least + kMiB - 1) / kMiB * kMiB;
    while (stream && fixed(p.weights, stream_batch(least)) + per_position * kMinCtx > least) least += kMiB;
    throw Error(codes::kInvalidArgument,
                "memory budget " + mib(budget) + " is too small for this model with " +
                    setting(Setting::kWeights, to_string(p.weights)) + " (needs at least " + mib(least) +
                    (stream ? "" : "; try " + setting(Setting::kWeights, "stream")) + ")");
  }
  const uint64_t positions = (budget - need) / per_position;
  p.n_ctx_max = static_cast<int>(std::min<uint64_t>(positions, 1u << 24)) / kCtxGranule * kCtxGranule;
  return p;
}

}  // namespace a3s::power::engine

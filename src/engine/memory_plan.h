// Memory accounting of a loaded model under a memory budget (docs/layer-streaming.md):
//   budget ≥ baseline (process RSS before loading + a margin)
//          + weights in memory (resident: every tensor, plus the packed matrices' extra bytes; stream: two block-tensor buffers + one
//            expert plane (mixture of experts) + one output-head chunk + one embedding row)
//          + activations (n_batch × per-token buffers of the forward pass)
//          + n_ctx × per-position cost (fp16 K and V of every layer + attention scratch).
// From this the plan picks the residency (for Auto), the prefill batch (stream mode keeps the
// activations within 1/8 of the budget) and the largest context that fits.
#pragma once

#include <cstdint>
#include <vector>

#include "a3s/power/engine.h"
#include "engine/hparams.h"
#include "model/sources/weight_source.h"

namespace a3s::power::engine {

struct MemoryPlan {
  WeightsMode weights = WeightsMode::Resident;
  int n_batch = 512;
  int n_ctx_max = 0;              // 0 when there is no budget
  uint64_t weight_bytes = 0;      // weights in memory (estimate)
  uint64_t activation_bytes = 0;  // forward buffers for n_batch tokens
  uint64_t bytes_per_position = 0;
};

// Rows of the output head read per chunk by a streaming source.
inline constexpr int64_t kHeadChunkRows = 4096;

// Throws Error(codes::kInvalidArgument) when the model cannot fit the budget in the requested mode
// (naming the smallest budget that would do).
// resident_extra_bytes: what resident weights take beyond the tensors' bytes (packed_weights.h).
MemoryPlan plan_memory(const HParams& hp, const std::vector<weights::TensorDesc>& tensors, int output_id,
                       int tok_embd_id, const ModelOptions& opts, int n_threads, uint64_t baseline_bytes,
                       uint64_t resident_extra_bytes = 0);

// Forward-pass buffer bytes per batch token (float activations, quantized activation row, head
// chunk output for streaming).
uint64_t activation_bytes_per_token(const HParams& hp, bool stream);

}  // namespace a3s::power::engine

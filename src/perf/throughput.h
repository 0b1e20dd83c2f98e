// Prompt-processing (prefill) and generation (decode) throughput of a model, measured the way
// llama.cpp's `llama-bench` measures `pp<N>` and `tg<N>` so the figures compare directly:
//   * pp: the KV cache is cleared, then N random tokens (BOS first when the model adds one) are
//     evaluated as one prompt, in batches of the model's n_batch; tokens/s = N / wall time.
//   * tg: the KV cache is cleared, then N tokens are decoded one at a time (BOS first when the
//     model adds one, then random tokens); tokens/s = N / wall time.
// One warm-up run of each test comes first and is not counted. Mean and sample standard deviation
// are taken over the per-repetition tokens/s figures.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power::perf {

struct Throughput {
  int n_tokens = 0;
  std::vector<double> tokens_per_s;  // one entry per repetition
  double seconds = 0;                // wall time of the measured repetitions
  uint64_t storage_bytes = 0;        // weight bytes read from storage during them (streaming)
  double bytes_per_token() const;    // storage_bytes / tokens measured
  double read_bandwidth() const;     // storage_bytes / seconds (bytes per second)
  double mean() const;
  double stddev() const;  // sample standard deviation (0 for fewer than two repetitions)
};

// ctx must have room for n_tokens (n_ctx() ≥ n_tokens); it is cleared before every repetition.
// Throws Error(codes::kInvalidArgument) for n_tokens < 1 or reps < 1.
Throughput measure_prefill(Context& ctx, int n_tokens, int reps, uint64_t seed);
// `around`, when set, is called before the first measured repetition and after each one (reps + 1
// calls, outside the timed spans): bench measures the memory bandwidth there.
Throughput measure_decode(Context& ctx, int n_tokens, int reps, uint64_t seed,
                          const std::function<void()>& around = nullptr);

}  // namespace a3s::power::perf

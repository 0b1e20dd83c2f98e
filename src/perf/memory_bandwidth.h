// Sequential read bandwidth of main memory with the engine's threads: the physical limit of decode,
// which reads every weight once per token. `bench --membw` reports it beside tg so a decode figure
// can be read as a fraction of what this machine's memory can deliver (the decode ceiling is
// bandwidth ÷ model bytes).
//
// Method: a buffer of `bytes` (rounded down to a multiple of 4 KiB × threads; at least 64 MiB so it
// cannot stay in cache) is written once, then each repetition has every thread of `pool` sum its own
// contiguous share with 8-byte loads. The figure is the best repetition's bytes ÷ seconds, so a
// disturbance by another process lowers single repetitions, not the result.
#pragma once

#include <cstddef>

#include "core/thread_pool.h"

namespace a3s::power::perf {

struct MemoryBandwidth {
  size_t buffer_bytes = 0;
  int threads = 0;
  double bytes_per_s = 0;  // best repetition
};

// Throws Error("invalid_argument") for bytes < 64 MiB or reps < 1; std::bad_alloc when the buffer
// cannot be allocated.
MemoryBandwidth measure_read_bandwidth(ThreadPool& pool, size_t bytes, int reps);

}  // namespace a3s::power::perf

// Sequential read bandwidth of main memory with the engine's threads: the physical limit of decode,
// which reads every weight once per token. `bench --membw` reports it beside tg so a decode figure
// can be read as a fraction of what this machine's memory can deliver (the decode ceiling is
// bandwidth ÷ model bytes).
//
// Method: the buffer (at least 64 MiB, so it cannot stay in cache; each thread's share rounded down to
// whole 4 KiB pages) is written once, then each repetition has every thread of `pool` sum its own
// contiguous share with the widest vector loads the CPU has (64 bytes with AVX-512, else 32 with
// AVX2, else what the compiler makes of 64-byte vectors). The figure is the best repetition's
// bytes ÷ seconds, so a disturbance by another process lowers single repetitions, not the result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/thread_pool.h"

namespace a3s::power::perf {

// The memory the measurement reads. It is allocated before anything else is measured, so a machine
// that cannot spare it fails at once, and it is not touched until the measurement (untouched pages do
// not count in the process's resident set).
class BandwidthBuffer {
 public:
  // Throws Error(codes::kInvalidArgument) for bytes < 64 MiB and Error(codes::kResourceExhausted) when the
  // memory cannot be mapped.
  explicit BandwidthBuffer(size_t bytes);
  ~BandwidthBuffer();
  BandwidthBuffer(const BandwidthBuffer&) = delete;
  BandwidthBuffer& operator=(const BandwidthBuffer&) = delete;
  size_t bytes() const { return n_words_ * sizeof(uint64_t); }
  // Gives the pages back to the system (the next measurement writes them again).
  void release();
  uint64_t* words() { return words_; }
  size_t n_words() const { return n_words_; }

 private:
  uint64_t* words_ = nullptr;  // an anonymous private mapping
  size_t n_words_ = 0;
};

struct MemoryBandwidth {
  size_t buffer_bytes = 0;  // bytes read per repetition
  int threads = 0;
  double bytes_per_s = 0;  // best repetition
};

// Throws Error(codes::kInvalidArgument) for reps < 1.
MemoryBandwidth measure_read_bandwidth(ThreadPool& pool, BandwidthBuffer& buffer, int reps);

}  // namespace a3s::power::perf

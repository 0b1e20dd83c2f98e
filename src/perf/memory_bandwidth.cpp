#include "perf/memory_bandwidth.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power::perf {
namespace {

constexpr size_t kMinBytes = size_t{64} << 20;

// Sum of n 8-byte words (n a multiple of 32, p 64-byte aligned) in four independent chains of the
// widest vectors the CPU loads (a clone per instruction set, picked at load time), so loads, not
// additions, set the pace: with 8-byte loads two cores of a Zen 5 read 25-30 % less than with 64-byte
// ones, and the figure is meant as the ceiling of the decode kernels, which load whole vectors.
using Lanes = uint64_t __attribute__((vector_size(64)));
__attribute__((target_clones("avx512f", "avx2", "default"))) uint64_t sum_words(const uint64_t* p, size_t n) {
  constexpr size_t kLanes = sizeof(Lanes) / sizeof(uint64_t);
  Lanes s[4] = {};
  for (size_t i = 0; i < n; i += 4 * kLanes) {
    for (size_t c = 0; c < 4; ++c) {
      Lanes v;
      __builtin_memcpy(&v, p + i + c * kLanes, sizeof v);
      s[c] += v;
    }
  }
  const Lanes t = s[0] + s[1] + s[2] + s[3];
  uint64_t sum = 0;
  for (size_t l = 0; l < kLanes; ++l) sum += t[l];
  return sum;
}

}  // namespace

BandwidthBuffer::BandwidthBuffer(size_t bytes) {
  if (bytes < kMinBytes) throw Error(codes::kInvalidArgument, "the bandwidth buffer must be at least 64 MiB");
  n_words_ = bytes / sizeof(uint64_t);
  // mmap, not new[]: pages stay unallocated until touched, and a size the machine cannot give is a
  // failed call, not an allocator abort.
  void* p =
      mmap(nullptr, n_words_ * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    n_words_ = 0;
    throw Error(codes::kResourceExhausted, "cannot allocate the " + std::to_string(bytes >> 20) +
                                               " MiB buffer of the bandwidth measurement");
  }
  words_ = static_cast<uint64_t*>(p);
}

BandwidthBuffer::~BandwidthBuffer() {
  if (words_ != nullptr) munmap(words_, n_words_ * sizeof(uint64_t));
}

void BandwidthBuffer::release() {
  if (words_ != nullptr) (void)madvise(words_, n_words_ * sizeof(uint64_t), MADV_DONTNEED);
}

MemoryBandwidth measure_read_bandwidth(ThreadPool& pool, BandwidthBuffer& buffer, int reps) {
  if (reps < 1) throw Error(codes::kInvalidArgument, "a benchmark needs at least one repetition");
  const int threads = pool.size();
  const size_t share = buffer.bytes() / static_cast<size_t>(threads) / 4096 * 4096;
  const size_t words = share / sizeof(uint64_t);
  uint64_t* base = buffer.words();
  // Written by the threads that will read it (first touch places pages near them).
  pool.run(threads, [&](int t, int) {
    uint64_t* p = base + static_cast<size_t>(t) * words;
    for (size_t i = 0; i < words; ++i) p[i] = i * 0x9E3779B97F4A7C15ull;
  });
  std::vector<uint64_t> sums(static_cast<size_t>(threads));
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pool.run(threads, [&](int t, int) {
      sums[static_cast<size_t>(t)] = sum_words(base + static_cast<size_t>(t) * words, words);
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > 0) best = std::max(best, static_cast<double>(share) * threads / s);
  }
  // The sums are used, so the reads cannot be dropped.
  volatile uint64_t sink = 0;
  for (uint64_t v : sums) sink = sink + v;
  return MemoryBandwidth{share * static_cast<size_t>(threads), threads, best};
}

}  // namespace a3s::power::perf

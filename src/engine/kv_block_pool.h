// The paged KV cache's block pool: one per model, shared by every sequence (Context) and every
// prompt-cache snapshot of that model.
//
// A block holds kKvBlockTokens consecutive positions of one sequence for every layer, as one KvBuffer
// (kv_buffer.h: zero when allocated, excluded from core dumps, wiped before it is unmapped). Layout,
// with B = kKvBlockTokens and E = n_embd_kv, for layer il:
//   K  [B, E] at values il·2·B·E        (one row per position, heads contiguous)
//   Vᵀ [E, B] at values il·2·B·E + B·E  (V transposed: one row per output dimension)
// Blocks are reference counted (std::shared_ptr): a sequence and the snapshots or forks that share
// its blocks hold the same block; the last holder frees it, which wipes it and returns it to the pool.
//
// Accounting. capacity C blocks (0 = no limit but the machine's memory), in_use A, reserved R.
// reserve(k) grants k blocks when A + R + k <= C (otherwise it waits); allocate() draws from the
// caller's reservation first, otherwise from the free capacity C − A − R, otherwise throws
// Error(codes::kResourceExhausted). So a sequence that reserved what it can need never fails midway.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/kv_buffer.h"

namespace a3s::power::engine {

inline constexpr int kKvBlockTokens = 32;  // positions per block (the attention padding, kKvPad)

// Counters of a pool (reported by /health, ps and /metrics).
struct KvPoolStats {
  int64_t blocks_total = 0;     // capacity (0 = unbounded)
  int64_t blocks_in_use = 0;    // allocated and held by a sequence or a snapshot
  int64_t blocks_reserved = 0;  // promised to sequences, not yet allocated
  int64_t waiting = 0;          // reservations waiting for blocks to be freed
  uint64_t block_bytes = 0;     // bytes of one block
  uint64_t blocks_wiped = 0;    // blocks wiped and freed since the pool was made
};

class KvBlockPool {
 public:
  using Block = std::shared_ptr<KvBuffer>;

  // capacity_blocks: 0 = unbounded.
  KvBlockPool(int n_layer, int n_embd_kv, int64_t capacity_blocks);
  ~KvBlockPool();
  KvBlockPool(const KvBlockPool&) = delete;
  KvBlockPool& operator=(const KvBlockPool&) = delete;

  int n_layer() const { return n_layer_; }
  int n_embd_kv() const { return n_embd_kv_; }
  size_t block_values() const { return block_values_; }  // fp16 values in one block
  uint64_t block_bytes() const { return block_values_ * sizeof(uint16_t); }

  // A zero-filled block. Drawn from *reservation (decremented) when reservation is non-null and
  // positive, else from the free capacity. Throws Error(codes::kResourceExhausted) when the pool is
  // full, and std::bad_alloc when the machine's memory is.
  Block allocate(int64_t* reservation);

  // Reserves k blocks (k >= 0): returns true once A + R + k <= C (at once for an unbounded pool),
  // false when `deadline` passes or *cancel is raised first (checked every few milliseconds).
  // Throws Error(codes::kResourceExhausted) when k exceeds the capacity itself.
  bool reserve(int64_t k, std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel);
  // reserve() without waiting.
  bool try_reserve(int64_t k);
  // Gives back k reserved blocks that were not allocated.
  void unreserve(int64_t k) noexcept;

  // Changes the capacity (0 = unbounded). Blocks in use beyond a lower capacity stay valid; new
  // reservations wait until enough are freed.
  void set_capacity(int64_t blocks);

  KvPoolStats stats() const;

  struct State;

 private:
  int n_layer_, n_embd_kv_;
  size_t block_values_;
  std::shared_ptr<State> st_;  // shared with the blocks' deleters: a block may outlive the pool
};

}  // namespace a3s::power::engine

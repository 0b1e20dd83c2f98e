// KV cache of one sequence, paged: a block table over the model's KvBlockPool (kv_block_pool.h).
// Block b holds positions [b·B, (b+1)·B) (B = kKvBlockTokens) of every layer, as IEEE fp16
// (llama.cpp's default cache type): per layer K [B, n_embd_kv] (head h in columns
// [h·head_dim, (h+1)·head_dim)) and V transposed, [n_embd_kv, B], so that attention's
// probability-weighted sum over positions is a dot product per output dimension over the pages
// (kernels::dot_f16_lanes16_pages) — the same bits as a contiguous cache.
//
// Blocks are allocated as positions are used, never for the whole context up front, and may be
// shared with snapshots (Context::snapshot) and forks (Context::fork): prepare() copies a shared
// block before the first write to it (copy on write), so a sharer never sees another's entries.
// The sequence's reservation (blocks promised by the pool) is drawn from first.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/kv_block_pool.h"
#include "kernels/f16_pages.h"

namespace a3s::power::engine {

class KvCache {
 public:
  using Block = KvBlockPool::Block;

  // Holds nothing yet; prepare() allocates. The pool must outlive the cache.
  KvCache(KvBlockPool& pool, int n_ctx);
  ~KvCache();
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  int n_ctx() const { return n_ctx_; }
  int n_layer() const { return pool_->n_layer(); }
  int n_embd_kv() const { return pool_->n_embd_kv(); }
  KvBlockPool& pool() const { return *pool_; }
  int capacity() const { return static_cast<int>(blocks_.size()) * kKvBlockTokens; }  // positions with a block
  int n_blocks() const { return static_cast<int>(blocks_.size()); }
  size_t bytes() const { return blocks_.size() * pool_->block_bytes(); }  // of the blocks held (shared ones too)
  int64_t reservation() const { return reserved_; }

  // Blocks prepare(from, n) would take from the pool: the missing ones and the shared ones among the
  // blocks of positions [from, n).
  int64_t blocks_needed(int from, int n) const;

  // Makes positions [from, n) (0 <= from <= n <= n_ctx) writable: allocates their missing blocks and
  // copies the shared ones, drawing on the reservation first. Throws Error(codes::kResourceExhausted)
  // when the pool is full (std::bad_alloc when memory is); the blocks done so far stay, and every
  // stored entry stays valid.
  void prepare(int from, int n);

  // Adds k blocks to this sequence's reservation (KvBlockPool::reserve: waits until `deadline` or
  // *cancel; false when it could not).
  bool reserve(int64_t k, std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel);

  // A zero-filled block for a copy (a snapshot's partial block), from the reservation first.
  Block allocate_spare() { return pool_->allocate(&reserved_); }

  // Stores the float K and V rows (n_embd_kv each) of position `pos` (< capacity, prepared) in layer
  // il (rounded to fp16).
  void store(int il, int pos, const float* k, const float* v) { store(il, pos, k, v, 0, n_embd_kv()); }
  // The same for dimensions [d0, d1) of the rows alone (0 <= d0 <= d1 <= n_embd_kv), so that threads
  // can share a row. V is kept transposed, so each of its dimensions lands in its own cache line of
  // the block; after a decode step has read the weights none of those lines is in a cache, and a row
  // is thousands of misses: every line is asked for before the first is written.
  void store(int il, int pos, const float* k, const float* v, int d0, int d1);

  // K [B, n_embd_kv] of block b in layer il.
  const uint16_t* k_block(int il, int b) const {
    return blocks_[static_cast<size_t>(b)]->data() + layer_offset(il);
  }
  // fp16 K row of `pos` in layer il (n_embd_kv values).
  const uint16_t* k_row(int il, int pos) const {
    return k_block(il, pos / kKvBlockTokens) + static_cast<size_t>(pos % kKvBlockTokens) * n_embd_kv();
  }
  // The V rows (one per output dimension, starting at dimension dim0) of layer il, as pages over
  // the blocks: element j of row r is V[pos j][dim0 + r]. Valid until the block table changes.
  kernels::F16Pages v_pages(int il, int dim0) const {
    return {block_data_.data(), 5, static_cast<int64_t>(layer_offset(il)) + kKvBlockTokens * n_embd_kv() +
                                       static_cast<int64_t>(dim0) * kKvBlockTokens,
            kKvBlockTokens};
  }
  // fp16 V of position `pos`, dimension `dim`, layer il.
  uint16_t v_at(int il, int pos, int dim) const {
    return blocks_[static_cast<size_t>(pos / kKvBlockTokens)]
        ->data()[layer_offset(il) + static_cast<size_t>(kKvBlockTokens) * n_embd_kv() +
                 static_cast<size_t>(dim) * kKvBlockTokens + pos % kKvBlockTokens];
  }

  const std::vector<Block>& blocks() const { return blocks_; }
  // Holds `blocks` (shared, not copied) as blocks [0, blocks.size()), dropping what it held.
  void share(const std::vector<Block>& blocks);
  // Drops blocks [n_blocks, …) (each is wiped and freed by its last holder).
  void drop_from(int n_blocks);
  // Drops every block and gives back the reservation.
  void release();

 private:
  size_t layer_offset(int il) const {
    return static_cast<size_t>(il) * 2 * kKvBlockTokens * static_cast<size_t>(n_embd_kv());
  }
  void set_block(size_t b, Block blk);

  KvBlockPool* pool_;
  int n_ctx_;
  int64_t reserved_ = 0;
  std::vector<Block> blocks_;
  std::vector<const uint16_t*> block_data_;  // blocks_[b]->data(): the pages attention reads
};

static_assert(kKvBlockTokens == 32, "v_pages() names the page size as log2 5");

}  // namespace a3s::power::engine

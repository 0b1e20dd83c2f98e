#include "engine/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "crypto/secure_memory.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {

KvCache::KvCache(KvBlockPool& pool, int n_ctx) : pool_(&pool), n_ctx_(n_ctx) {
  const size_t max_blocks = static_cast<size_t>((n_ctx + kKvBlockTokens - 1) / kKvBlockTokens);
  blocks_.reserve(max_blocks);
  block_data_.reserve(max_blocks);
}

KvCache::~KvCache() { release(); }

int64_t KvCache::blocks_needed(int from, int n) const {
  if (n <= from) return 0;
  int64_t k = 0;
  for (int b = from / kKvBlockTokens; b < (n + kKvBlockTokens - 1) / kKvBlockTokens; ++b)
    if (static_cast<size_t>(b) >= blocks_.size() || blocks_[static_cast<size_t>(b)].use_count() > 1) ++k;
  return k;
}

void KvCache::set_block(size_t b, Block blk) {
  if (b == blocks_.size()) {
    block_data_.push_back(blk->data());
    blocks_.push_back(std::move(blk));
  } else {
    block_data_[b] = blk->data();
    blocks_[b] = std::move(blk);  // the old one is wiped and freed by its last holder
  }
}

void KvCache::prepare(int from, int n) {
  if (n <= from) return;
  for (int b = from / kKvBlockTokens; b < (n + kKvBlockTokens - 1) / kKvBlockTokens; ++b) {
    const size_t i = static_cast<size_t>(b);
    if (i < blocks_.size() && blocks_[i].use_count() == 1) continue;
    Block fresh = pool_->allocate(&reserved_);
    if (i < blocks_.size())  // shared: copy before the first write (copy on write)
      std::memcpy(fresh->data(), blocks_[i]->data(), pool_->block_bytes());
    set_block(i, std::move(fresh));
  }
}

bool KvCache::reserve(int64_t k, std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel) {
  if (k <= 0) return true;
  if (!pool_->reserve(k, deadline, cancel)) return false;
  reserved_ += k;
  return true;
}

void KvCache::store(int il, int pos, const float* k, const float* v, int d0, int d1) {
  const size_t e = static_cast<size_t>(n_embd_kv());
  uint16_t* blk = blocks_[static_cast<size_t>(pos / kKvBlockTokens)]->data() + layer_offset(il);
  uint16_t* kr = blk + static_cast<size_t>(pos % kKvBlockTokens) * e;
  uint16_t* vt = blk + kKvBlockTokens * e + pos % kKvBlockTokens;
  constexpr int kLineValues = 32;  // fp16 values per 64-byte cache line
  for (int d = d0; d < d1; d += kLineValues) __builtin_prefetch(kr + d, 1);
  for (int d = d0; d < d1; ++d) __builtin_prefetch(vt + static_cast<size_t>(d) * kKvBlockTokens, 1);
  kernels::fp32_to_fp16_row(k + d0, kr + d0, d1 - d0);
  // V: converted a chunk at a time on the stack (the vector row conversion), then scattered.
  constexpr int kChunk = 256;
  uint16_t h[kChunk];
  for (int c0 = d0; c0 < d1; c0 += kChunk) {
    const int m = std::min(kChunk, d1 - c0);
    kernels::fp32_to_fp16_row(v + c0, h, m);
    for (int i = 0; i < m; ++i) vt[static_cast<size_t>(c0 + i) * kKvBlockTokens] = h[i];
  }
  crypto::wipe(h, sizeof h);  // request data
}

void KvCache::share(const std::vector<Block>& blocks) {
  drop_from(0);
  for (const Block& b : blocks) set_block(blocks_.size(), b);
}

void KvCache::drop_from(int n_blocks) {
  while (blocks_.size() > static_cast<size_t>(n_blocks)) {
    blocks_.pop_back();
    block_data_.pop_back();
  }
}

void KvCache::release() {
  drop_from(0);
  pool_->unreserve(reserved_);
  reserved_ = 0;
}

}  // namespace a3s::power::engine

// KV cache of one sequence: keys and values of every layer for positions [0, n_ctx), stored as
// IEEE fp16 (llama.cpp's default cache type). Memory grows with the positions actually used, in
// chunks of kKvChunk positions (up to n_ctx), never for the whole context up front.
//
// Layout per layer: K is [capacity, n_embd_kv] (one row per position, heads contiguous:
// head h occupies columns [h*head_dim, (h+1)*head_dim)); V is stored transposed, [n_embd_kv, capacity],
// so that attention's probability-weighted sum over positions is a contiguous dot product per
// output dimension (as llama.cpp does without flash attention).
//
// Storage is KvBuffer (kv_buffer.h): excluded from core dumps and wiped before it is released, so a
// growth step leaves no copy of the old entries in freed memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/kv_buffer.h"

namespace a3s::power::engine {

inline constexpr int kKvChunk = 256;  // positions added per growth step (a multiple of the KV padding)

class KvCache {
 public:
  // Allocates nothing yet; reserve() grows it.
  KvCache(int n_layer, int n_ctx, int n_embd_kv);

  int n_ctx() const { return n_ctx_; }
  int n_embd_kv() const { return n_embd_kv_; }
  int capacity() const { return capacity_; }  // positions allocated in every layer
  size_t bytes() const;                          // bytes allocated

  // Makes room for positions [0, n), keeping every stored entry. Capacity grows to the next multiple
  // of kKvChunk (at least doubling, at most n_ctx rounded up to 32), one layer at a time so a
  // growth step needs one layer's worth of extra memory. Throws std::bad_alloc when memory runs out;
  // the layers grown so far keep their new size and every stored entry stays valid.
  void reserve(int n);

  // Stores the float K and V rows (n_embd_kv each) of position `pos` (< capacity) in layer il
  // (rounded to fp16).
  void store(int il, int pos, const float* k, const float* v);

  // fp16 K row of `pos` in layer il (n_embd_kv values).
  const uint16_t* k_row(int il, int pos) const {
    return k_[static_cast<size_t>(il)].data() + static_cast<size_t>(pos) * n_embd_kv_;
  }
  // fp16 V column `dim` of layer il: one value per position (capacity values).
  const uint16_t* v_col(int il, int dim) const {
    return v_[static_cast<size_t>(il)].data() + static_cast<size_t>(dim) * layer_cap_[static_cast<size_t>(il)];
  }

  // Elements between consecutive V columns of layer il (its capacity).
  int64_t v_col_stride(int il) const { return layer_cap_[static_cast<size_t>(il)]; }

  // Zeroes every allocated entry (crypto::wipe: not elided).
  void clear();

  // Copies positions [0, n) (n <= capacity) of layer il out: K rows into k ([n, n_embd_kv]), V into
  // v transposed with stride n ([n_embd_kv, n]).
  void copy_prefix_out(int il, int n, uint16_t* k, uint16_t* v) const;
  // The reverse: stores positions [0, n) (n <= capacity) of layer il from the same layout, where
  // `stride` (>= n) is the V column stride of the source.
  void copy_prefix_in(int il, int n, const uint16_t* k, const uint16_t* v, int stride);

  // The storage of layer il (tests check that a wiped cache is all zero).
  const KvBuffer& k_buffer(int il) const { return k_[static_cast<size_t>(il)]; }
  const KvBuffer& v_buffer(int il) const { return v_[static_cast<size_t>(il)]; }
  int n_layer() const { return n_layer_; }

 private:
  int n_layer_, n_ctx_, n_embd_kv_;
  int capacity_ = 0;              // min over layer_cap_
  std::vector<int> layer_cap_;    // positions allocated per layer (the V column stride)
  std::vector<KvBuffer> k_, v_;   // per layer
};

}  // namespace a3s::power::engine

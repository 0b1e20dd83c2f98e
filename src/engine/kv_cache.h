// KV cache of one sequence: keys and values of every layer for positions [0, n_ctx), stored as
// IEEE fp16 (llama.cpp's default cache type).
//
// Layout per layer: K is [n_ctx, n_embd_kv] (one row per position, heads contiguous:
// head h occupies columns [h*head_dim, (h+1)*head_dim)); V is stored transposed, [n_embd_kv, n_ctx],
// so that attention's probability-weighted sum over positions is a contiguous dot product per
// output dimension (as llama.cpp does without flash attention).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace a3s::power::engine {

class KvCache {
 public:
  KvCache(int n_layer, int n_ctx, int n_embd_kv);

  int n_ctx() const { return n_ctx_; }
  int n_embd_kv() const { return n_embd_kv_; }
  size_t bytes() const { return (k_.size() + v_.size()) * sizeof(uint16_t); }

  // Stores the float K and V rows (n_embd_kv each) of position `pos` in layer il (rounded to fp16).
  void store(int il, int pos, const float* k, const float* v);

  // fp16 K row of `pos` in layer il (n_embd_kv values).
  const uint16_t* k_row(int il, int pos) const {
    return k_.data() + (static_cast<size_t>(il) * n_ctx_ + static_cast<size_t>(pos)) * n_embd_kv_;
  }
  // fp16 V column `dim` of layer il: n_ctx values, one per position.
  const uint16_t* v_col(int il, int dim) const {
    return v_.data() + (static_cast<size_t>(il) * n_embd_kv_ + static_cast<size_t>(dim)) * n_ctx_;
  }

  // Zeroes every entry.
  void clear();

 private:
  int n_layer_, n_ctx_, n_embd_kv_;
  std::vector<uint16_t> k_, v_;
};

}  // namespace a3s::power::engine

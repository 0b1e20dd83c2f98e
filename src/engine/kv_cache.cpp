#include "engine/kv_cache.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace a3s::power::engine {

KvCache::KvCache(int n_layer, int n_ctx, int n_embd_kv)
    : n_layer_(n_layer),
      n_ctx_(n_ctx),
      n_embd_kv_(n_embd_kv),
      k_(static_cast<size_t>(n_layer) * n_ctx * n_embd_kv, 0),
      v_(static_cast<size_t>(n_layer) * n_ctx * n_embd_kv, 0) {}

void KvCache::store(int il, int pos, const float* k, const float* v) {
  uint16_t* kd = k_.data() + (static_cast<size_t>(il) * n_ctx_ + static_cast<size_t>(pos)) * n_embd_kv_;
  kernels::fp32_to_fp16_row(k, kd, n_embd_kv_);
  uint16_t* vd = v_.data() + static_cast<size_t>(il) * n_embd_kv_ * n_ctx_ + static_cast<size_t>(pos);
  for (int d = 0; d < n_embd_kv_; ++d) vd[static_cast<size_t>(d) * n_ctx_] = kernels::fp32_to_fp16(v[d]);
}

void KvCache::clear() {
  std::fill(k_.begin(), k_.end(), uint16_t{0});
  std::fill(v_.begin(), v_.end(), uint16_t{0});
}

}  // namespace a3s::power::engine

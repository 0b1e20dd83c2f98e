#include "engine/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "kernels/kernels.h"

namespace a3s::power::engine {

KvCache::KvCache(int n_layer, int n_ctx, int n_embd_kv)
    : n_layer_(n_layer), n_ctx_(n_ctx), n_embd_kv_(n_embd_kv), layer_cap_(static_cast<size_t>(n_layer), 0),
      k_(static_cast<size_t>(n_layer)), v_(static_cast<size_t>(n_layer)) {}

size_t KvCache::bytes() const {
  size_t b = 0;
  for (int c : layer_cap_) b += 2 * static_cast<size_t>(c) * n_embd_kv_ * sizeof(uint16_t);
  return b;
}

void KvCache::reserve(int n) {
  if (n <= capacity_) return;
  const int limit = (n_ctx_ + 31) / 32 * 32;
  int cap = std::max(n, 2 * capacity_);
  cap = (cap + kKvChunk - 1) / kKvChunk * kKvChunk;
  cap = std::max(std::min(cap, limit), n);
  const size_t d = static_cast<size_t>(n_embd_kv_);
  for (size_t l = 0; l < static_cast<size_t>(n_layer_); ++l) {
    const size_t old = static_cast<size_t>(layer_cap_[l]);
    if (old >= static_cast<size_t>(cap)) continue;
    KvBuffer k(static_cast<size_t>(cap) * d), v(static_cast<size_t>(cap) * d);  // zero-filled
    if (old > 0) {
      std::memcpy(k.data(), k_[l].data(), old * d * sizeof(uint16_t));
      for (size_t j = 0; j < d; ++j)
        std::memcpy(v.data() + j * static_cast<size_t>(cap), v_[l].data() + j * old, old * sizeof(uint16_t));
    }
    k_[l] = std::move(k);  // the old buffers are wiped as they are released
    v_[l] = std::move(v);
    layer_cap_[l] = cap;
  }
  capacity_ = cap;
}

void KvCache::store(int il, int pos, const float* k, const float* v) {
  const size_t l = static_cast<size_t>(il);
  uint16_t* kd = k_[l].data() + static_cast<size_t>(pos) * n_embd_kv_;
  kernels::fp32_to_fp16_row(k, kd, n_embd_kv_);
  uint16_t* vd = v_[l].data() + static_cast<size_t>(pos);
  const size_t stride = static_cast<size_t>(layer_cap_[l]);
  for (int d = 0; d < n_embd_kv_; ++d) vd[static_cast<size_t>(d) * stride] = kernels::fp32_to_fp16(v[d]);
}

void KvCache::copy_prefix_out(int il, int n, uint16_t* k, uint16_t* v) const {
  const size_t l = static_cast<size_t>(il), d = static_cast<size_t>(n_embd_kv_), cnt = static_cast<size_t>(n);
  std::memcpy(k, k_[l].data(), cnt * d * sizeof(uint16_t));
  const size_t stride = static_cast<size_t>(layer_cap_[l]);
  for (size_t j = 0; j < d; ++j) std::memcpy(v + j * cnt, v_[l].data() + j * stride, cnt * sizeof(uint16_t));
}

void KvCache::copy_prefix_in(int il, int n, const uint16_t* k, const uint16_t* v, int stride) {
  const size_t l = static_cast<size_t>(il), d = static_cast<size_t>(n_embd_kv_), cnt = static_cast<size_t>(n);
  std::memcpy(k_[l].data(), k, cnt * d * sizeof(uint16_t));
  const size_t dst = static_cast<size_t>(layer_cap_[l]), src = static_cast<size_t>(stride);
  for (size_t j = 0; j < d; ++j) std::memcpy(v_[l].data() + j * dst, v + j * src, cnt * sizeof(uint16_t));
}

void KvCache::clear() {
  for (auto& layer : k_) layer.wipe();
  for (auto& layer : v_) layer.wipe();
}

}  // namespace a3s::power::engine

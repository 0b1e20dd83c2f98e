#include "engine/kv_block_pool.h"

#include <condition_variable>
#include <mutex>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power::engine {

struct KvBlockPool::State {
  mutable std::mutex mu;
  std::condition_variable freed;
  int64_t capacity = 0;
  int64_t in_use = 0;
  int64_t reserved = 0;
  int64_t waiting = 0;
  uint64_t wiped = 0;

  bool fits(int64_t k) const { return capacity == 0 || in_use + reserved + k <= capacity; }
};

KvBlockPool::KvBlockPool(int n_layer, int n_embd_kv, int64_t capacity_blocks)
    : n_layer_(n_layer),
      n_embd_kv_(n_embd_kv),
      block_values_(static_cast<size_t>(n_layer) * 2 * kKvBlockTokens * static_cast<size_t>(n_embd_kv)),
      st_(std::make_shared<State>()) {
  set_capacity(capacity_blocks);
}

KvBlockPool::~KvBlockPool() = default;

KvBlockPool::Block KvBlockPool::allocate(int64_t* reservation) {
  {
    std::lock_guard<std::mutex> lk(st_->mu);
    if (reservation && *reservation > 0) {
      --*reservation;
      --st_->reserved;
    } else if (!st_->fits(1)) {
      throw Error(codes::kResourceExhausted, "the KV cache is full (" + std::to_string(st_->capacity) + " blocks)");
    }
    ++st_->in_use;
  }
  KvBuffer* buf = nullptr;
  try {
    buf = new KvBuffer(block_values_);
  } catch (...) {
    std::lock_guard<std::mutex> lk(st_->mu);
    --st_->in_use;
    st_->freed.notify_all();
    throw;
  }
  std::shared_ptr<State> st = st_;
  return Block(buf, [st](KvBuffer* b) {
    delete b;  // KvBuffer wipes its storage before unmapping it
    std::lock_guard<std::mutex> lk(st->mu);
    --st->in_use;
    ++st->wiped;
    st->freed.notify_all();
  });
}

bool KvBlockPool::try_reserve(int64_t k) {
  std::lock_guard<std::mutex> lk(st_->mu);
  if (k <= 0) return true;
  if (st_->capacity > 0 && k > st_->capacity)
    throw Error(codes::kResourceExhausted, "a sequence needs " + std::to_string(k) + " KV blocks, more than the cache holds (" +
                                               std::to_string(st_->capacity) + ")");
  if (!st_->fits(k)) return false;
  st_->reserved += k;
  return true;
}

bool KvBlockPool::reserve(int64_t k, std::chrono::steady_clock::time_point deadline,
                          const std::atomic<bool>* cancel) {
  if (try_reserve(k)) return true;
  std::unique_lock<std::mutex> lk(st_->mu);
  ++st_->waiting;
  bool granted = false;
  while (true) {
    if (st_->fits(k)) {
      st_->reserved += k;
      granted = true;
      break;
    }
    if (cancel && cancel->load(std::memory_order_relaxed)) break;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    // Cancellation has no notification of its own: wake up now and then to see it.
    st_->freed.wait_until(lk, std::min(deadline, now + std::chrono::milliseconds(20)));
  }
  --st_->waiting;
  return granted;
}

void KvBlockPool::unreserve(int64_t k) noexcept {
  if (k <= 0) return;
  std::lock_guard<std::mutex> lk(st_->mu);
  st_->reserved -= k;
  st_->freed.notify_all();
}

void KvBlockPool::set_capacity(int64_t blocks) {
  if (blocks < 0) throw Error(codes::kInvalidArgument, "a KV cache capacity must not be negative");
  std::lock_guard<std::mutex> lk(st_->mu);
  st_->capacity = blocks;
  st_->freed.notify_all();
}

KvPoolStats KvBlockPool::stats() const {
  std::lock_guard<std::mutex> lk(st_->mu);
  return {st_->capacity, st_->in_use, st_->reserved, st_->waiting, block_bytes(), st_->wiped};
}

}  // namespace a3s::power::engine

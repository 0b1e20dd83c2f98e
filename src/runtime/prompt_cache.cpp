#include "runtime/prompt_cache.h"

#include <openssl/rand.h>

#include <algorithm>

#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"

namespace a3s::power::runtime {

namespace {

void append_field(std::vector<uint8_t>& out, std::string_view field) {
  uint64_t n = field.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
  out.insert(out.end(), field.begin(), field.end());
}

CacheDigest mac(std::span<const uint8_t> secret, std::initializer_list<std::string_view> fields) {
  std::vector<uint8_t> msg;
  for (std::string_view f : fields) append_field(msg, f);
  CacheDigest d = crypto::hmac_sha256(secret, msg);
  crypto::wipe_allocation(msg);  // holds the caller's key
  return d;
}

}  // namespace

PromptCache::PromptCache(const PromptCacheOptions& opts) : opts_(opts) {
  if (opts_.max_entries < 1 || opts_.max_entries > 1024)
    throw Error(codes::kInvalidArgument, "prompt cache: max entries must be in 1..1024");
  if (RAND_priv_bytes(secret_.data(), static_cast<int>(secret_.size())) != 1)
    throw Error(codes::kInternal, "prompt cache: no random secret");
  if (opts_.sweeper) sweeper_ = std::thread([this] { sweep_loop(); });
}

PromptCache::~PromptCache() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
  lru_.clear();
  crypto::wipe(secret_.data(), secret_.size());
}

CacheDigest PromptCache::scope(std::string_view identity, std::string_view endpoint, std::string_view model_id,
                               std::string_view key) const {
  return mac(secret_, {"a3s-power/prompt-cache/scope/v1", identity, endpoint, model_id, key});
}

CacheDigest PromptCache::identity_tag(std::string_view identity) const {
  return mac(secret_, {"a3s-power/prompt-cache/identity/v1", identity});
}

PromptCache::Clock::time_point PromptCache::now() const { return Clock::now() + skew_; }

void PromptCache::erase(std::list<Entry>::iterator it, std::vector<std::shared_ptr<const KvSnapshot>>& freed) {
  stats_.bytes -= it->snap->bytes();
  freed.push_back(std::move(it->snap));
  lru_.erase(it);
  stats_.resident = lru_.size();
}

PromptCache::Hit PromptCache::lookup(const CacheDigest& scope, const std::shared_ptr<const void>& model,
                                     std::span<const Token> prompt) {
  std::vector<std::shared_ptr<const KvSnapshot>> freed;  // released after the lock
  std::lock_guard lk(mu_);
  ++stats_.requests;
  Hit hit;
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (it->scope != scope) continue;
    if (it->model.lock() != model || it->expires <= now()) break;  // stale: the sweeper removes it
    std::span<const Token> held = it->snap->tokens();
    size_t n = 0;
    const size_t limit = prompt.empty() ? 0 : std::min(held.size(), prompt.size() - 1);
    while (n < limit && held[n] == prompt[n]) ++n;
    if (n == 0) break;
    hit.snapshot = it->snap;
    hit.n = static_cast<int>(n);
    it->expires = now() + opts_.ttl;
    lru_.splice(lru_.begin(), lru_, it);
    break;
  }
  if (hit.snapshot) {
    ++stats_.hits;
    stats_.reused_tokens += static_cast<uint64_t>(hit.n);
  } else {
    ++stats_.misses;
  }
  return hit;
}

bool PromptCache::store(const CacheDigest& scope, const CacheDigest& identity,
                        const std::shared_ptr<const void>& model, std::shared_ptr<const KvSnapshot> snap) {
  if (!snap) return false;
  std::vector<std::shared_ptr<const KvSnapshot>> freed;
  std::lock_guard lk(mu_);
  // The scope's previous entry is replaced (not an eviction: the same caller's newer prompt).
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (it->scope == scope) {
      erase(it, freed);
      break;
    }
  }
  // Room under this identity's limit and the byte budget, from this identity's own entries only.
  auto own_count = [&] {
    return std::count_if(lru_.begin(), lru_.end(), [&](const Entry& e) { return e.identity == identity; });
  };
  auto evict_own_lru = [&] {
    for (auto it = lru_.end(); it != lru_.begin();) {
      --it;
      if (it->identity == identity) {
        erase(it, freed);
        ++stats_.evictions;
        return true;
      }
    }
    return false;
  };
  while (own_count() >= opts_.max_entries && evict_own_lru()) {
  }
  while (stats_.bytes + snap->bytes() > opts_.max_bytes) {
    if (!evict_own_lru()) return false;
  }
  stats_.bytes += snap->bytes();
  lru_.push_front(Entry{scope, identity, model, std::move(snap), now() + opts_.ttl});
  stats_.resident = lru_.size();
  return true;
}

void PromptCache::record_evaluated(int tokens) {
  std::lock_guard lk(mu_);
  stats_.evaluated_tokens += static_cast<uint64_t>(std::max(tokens, 0));
}

void PromptCache::expire_now() {
  std::vector<std::shared_ptr<const KvSnapshot>> freed;
  std::lock_guard lk(mu_);
  const auto t = now();
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto next = std::next(it);
    if (it->expires <= t || it->model.expired()) {
      erase(it, freed);
      ++stats_.evictions;
    }
    it = next;
  }
}

size_t PromptCache::evict_model(const std::shared_ptr<const void>& model) {
  std::vector<std::shared_ptr<const KvSnapshot>> freed;  // released after the lock
  std::lock_guard lk(mu_);
  size_t n = 0;
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto next = std::next(it);
    if (it->model.lock() == model) {
      erase(it, freed);
      ++stats_.evictions;
      ++n;
    }
    it = next;
  }
  return n;
}

void PromptCache::advance_clock_for_testing(std::chrono::milliseconds d) {
  std::lock_guard lk(mu_);
  skew_ += d;
}

PromptCacheStats PromptCache::stats() const {
  std::lock_guard lk(mu_);
  return stats_;
}

void PromptCache::sweep_loop() {
  std::unique_lock lk(mu_);
  while (!stopping_) {
    // Wakes at least every 250 ms: expiry and unloaded models are noticed within that.
    cv_.wait_for(lk, std::chrono::milliseconds(250));
    if (stopping_) break;
    lk.unlock();
    expire_now();
    lk.lock();
  }
}

}  // namespace a3s::power::runtime

// The keyed prompt-prefix cache (docs/prompt-cache.md): KV snapshots (a3s/power/engine.h, KvSnapshot)
// of exact prompt prefixes, found again by a scope the server derives from the caller.
//
// Scope. scope() is HMAC-SHA-256 under a random secret drawn when the cache is created (once per
// boot) over the length-prefixed tuple (identity, endpoint, model id, key): each field is preceded by
// its length as 8 little-endian bytes, so no field can run into the next. The caller's key never
// reaches the cache: only the digest is stored. Entries are also grouped by an identity tag (HMAC of
// the identity alone under the same secret), for the per-identity limit.
//
// Limits. At most `max_entries` entries per identity: storing one more evicts that identity's least
// recently used entry, never another identity's. An overall byte budget: an entry that does not fit
// after evicting the same identity's entries is not stored. Entries expire `ttl` after their last use
// (a sweeper thread removes them as they expire, and entries of a model that is no longer loaded).
// Every removed snapshot is freed, and a snapshot wipes its storage as it is freed (once the last
// request restoring from it has let go).
//
// Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power::runtime {

using CacheDigest = std::array<uint8_t, 32>;

struct PromptCacheOptions {
  int max_entries = 1;                        // per identity, 1..1024
  std::chrono::milliseconds ttl{300'000};     // since last use
  uint64_t max_bytes = uint64_t{1} << 30;     // snapshot storage over all identities
  bool sweeper = true;                        // false: expire only on expire_now() (tests)
};

struct PromptCacheStats {
  uint64_t requests = 0;        // lookups
  uint64_t hits = 0;            // lookups that reused a prefix
  uint64_t misses = 0;
  uint64_t reused_tokens = 0;   // prompt tokens restored from the cache
  uint64_t evaluated_tokens = 0;  // prompt tokens of keyed requests evaluated (record_evaluated)
  uint64_t evictions = 0;       // entries removed by the per-identity limit, TTL, or model unload
  uint64_t resident = 0;        // entries held now
  uint64_t bytes = 0;           // their snapshot bytes
};

class PromptCache {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PromptCache(const PromptCacheOptions& opts);
  ~PromptCache();  // stops the sweeper; every entry is freed (and so wiped)
  PromptCache(const PromptCache&) = delete;
  PromptCache& operator=(const PromptCache&) = delete;

  const PromptCacheOptions& options() const { return opts_; }

  CacheDigest scope(std::string_view identity, std::string_view endpoint, std::string_view model_id,
                    std::string_view key) const;
  CacheDigest identity_tag(std::string_view identity) const;

  struct Hit {
    std::shared_ptr<const KvSnapshot> snapshot;  // null on a miss
    int n = 0;                                   // tokens of `prompt` it holds (< prompt.size())
  };
  // The entry of `scope` for `model` (an identity of the loaded model, e.g. its runtime) and how many
  // leading tokens of `prompt` it holds, at most prompt.size() - 1 so one token is left to evaluate.
  // Counts a request and a hit or a miss; a hit refreshes the entry's LRU position and TTL.
  Hit lookup(const CacheDigest& scope, const std::shared_ptr<const void>& model, std::span<const Token> prompt);

  // Stores `snap` as the entry of `scope` (replacing the scope's previous entry), under `identity`'s
  // limit. Returns false when it does not fit the byte budget (nothing is evicted then).
  bool store(const CacheDigest& scope, const CacheDigest& identity, const std::shared_ptr<const void>& model,
             std::shared_ptr<const KvSnapshot> snap);

  void record_evaluated(int tokens);

  // Removes expired entries and entries of models no longer loaded (the sweeper calls it).
  void expire_now();
  // Removes every entry of `model` (counted as evictions), so their KV blocks go back to the model's
  // pool when a request needs them. Returns how many were removed.
  size_t evict_model(const std::shared_ptr<const void>& model);
  // Tests: moves the cache's clock forward.
  void advance_clock_for_testing(std::chrono::milliseconds d);

  PromptCacheStats stats() const;

 private:
  struct Entry {
    CacheDigest scope, identity;
    std::weak_ptr<const void> model;
    std::shared_ptr<const KvSnapshot> snap;
    Clock::time_point expires;
  };
  Clock::time_point now() const;
  void erase(std::list<Entry>::iterator it, std::vector<std::shared_ptr<const KvSnapshot>>& freed);
  void sweep_loop();

  PromptCacheOptions opts_;
  std::array<uint8_t, 32> secret_{};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<Entry> lru_;  // most recently used first
  Clock::duration skew_{};
  PromptCacheStats stats_;
  bool stopping_ = false;
  std::thread sweeper_;
};

}  // namespace a3s::power::runtime

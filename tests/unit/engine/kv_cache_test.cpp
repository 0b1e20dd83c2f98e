// The paged KV cache: the block pool's accounting (capacity, reservations drawn before free
// capacity, a full pool refused with "resource_exhausted", waiting reservations granted when a block
// is freed, deadline and cancellation), a cache's block table (blocks taken as positions are used,
// entries kept, copy on write of shared blocks), and Context::reserve on a model with a small pool.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "engine/context_inspect.h"
#include "engine/kv_cache.h"
#include "kernels/kernels.h"
#include "support/gguf_builder.h"

namespace a3s::power {
namespace kv_cache_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

ErrorCode error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return ErrorCode::kInternal;
}

TEST(KvBlockPool, ReservationsComeFirstAndAFullPoolIsRefused) {
  engine::KvBlockPool pool(2, 8, 4);
  EXPECT_EQ(pool.block_values(), 2u * 2 * 32 * 8);
  int64_t mine = 0;
  ASSERT_TRUE(pool.try_reserve(3));
  mine = 3;
  EXPECT_FALSE(pool.try_reserve(2)) << "3 reserved + 2 > 4";
  auto a = pool.allocate(&mine);
  EXPECT_EQ(mine, 2);
  EXPECT_EQ(pool.stats().blocks_in_use, 1);
  EXPECT_EQ(pool.stats().blocks_reserved, 2);
  auto free_one = pool.allocate(nullptr);  // the one block nobody reserved
  EXPECT_EQ(error_of([&] { pool.allocate(nullptr); }), codes::kResourceExhausted)
      << "the reserved blocks are not free capacity";
  auto b = pool.allocate(&mine);
  auto c = pool.allocate(&mine);
  EXPECT_EQ(mine, 0);
  EXPECT_EQ(pool.stats().blocks_in_use, 4);
  EXPECT_EQ(error_of([&] { pool.try_reserve(5); }), codes::kResourceExhausted) << "more than the capacity";
  for (uint16_t x : std::vector<uint16_t>(a->data(), a->data() + a->size())) ASSERT_EQ(x, 0) << "zero-filled";

  const uint64_t wiped = pool.stats().blocks_wiped;
  a.reset();
  free_one.reset();
  EXPECT_EQ(pool.stats().blocks_in_use, 2);
  EXPECT_EQ(pool.stats().blocks_wiped, wiped + 2);
  EXPECT_TRUE(pool.try_reserve(2));
  pool.unreserve(2);
  EXPECT_EQ(pool.stats().blocks_reserved, 0);
}

TEST(KvBlockPool, AWaitingReservationIsGrantedWhenABlockIsFreed) {
  engine::KvBlockPool pool(1, 8, 2);
  auto a = pool.allocate(nullptr);
  auto b = pool.allocate(nullptr);
  std::atomic<bool> granted{false};
  std::thread waiter([&] { granted = pool.reserve(1, Clock::now() + 60s, nullptr); });
  while (pool.stats().waiting == 0) std::this_thread::yield();
  EXPECT_FALSE(granted.load());
  a.reset();
  waiter.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(pool.stats().blocks_reserved, 1);
  EXPECT_EQ(pool.stats().waiting, 0);
}

TEST(KvBlockPool, AReservationGivesUpAtItsDeadlineOrWhenCancelled) {
  engine::KvBlockPool pool(1, 8, 1);
  auto a = pool.allocate(nullptr);
  EXPECT_FALSE(pool.reserve(1, Clock::now() + 30ms, nullptr));
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false}, granted{true};
  std::thread waiter([&] {
    granted = pool.reserve(1, Clock::now() + 60s, &cancel);
    done = true;
  });
  while (pool.stats().waiting == 0) std::this_thread::yield();
  cancel = true;
  waiter.join();
  EXPECT_FALSE(granted.load());
  EXPECT_EQ(pool.stats().blocks_reserved, 0) << "nothing is left reserved";
  EXPECT_EQ(error_of([&] { pool.set_capacity(-1); }), codes::kInvalidArgument);
}

TEST(KvCache, TakesBlocksAsPositionsAreUsedAndKeepsEntries) {
  engine::KvBlockPool pool(2, 8, 0);
  engine::KvCache kv(pool, 1000);
  EXPECT_EQ(kv.bytes(), 0u);
  EXPECT_EQ(kv.blocks_needed(0, 3), 1);
  kv.prepare(0, 3);
  EXPECT_EQ(kv.capacity(), 32);
  std::vector<float> k(8), v(8);
  auto fill = [&](int pos) {
    for (int d = 0; d < 8; ++d) k[static_cast<size_t>(d)] = static_cast<float>(pos * 10 + d), v[static_cast<size_t>(d)] = -k[static_cast<size_t>(d)];
  };
  for (int pos = 0; pos < 3; ++pos) fill(pos), kv.store(1, pos, k.data(), v.data());
  EXPECT_EQ(kv.blocks_needed(3, 300), 9);
  kv.prepare(3, 300);
  EXPECT_EQ(kv.capacity(), 320);
  EXPECT_EQ(kv.bytes(), 10 * pool.block_bytes());
  fill(299);
  kv.store(0, 299, k.data(), v.data());
  for (int pos = 0; pos < 3; ++pos)
    for (int d = 0; d < 8; ++d) {
      EXPECT_EQ(kernels::fp16_to_fp32(kv.k_row(1, pos)[d]), static_cast<float>(pos * 10 + d));
      EXPECT_EQ(kernels::fp16_to_fp32(kv.v_at(1, pos, d)), -static_cast<float>(pos * 10 + d));
    }
  const float rounded = kernels::fp16_to_fp32(kernels::fp32_to_fp16(2997.0f));  // fp16 keeps 2996
  EXPECT_EQ(kernels::fp16_to_fp32(kv.k_row(0, 299)[7]), rounded);
  EXPECT_EQ(kernels::fp16_to_fp32(kv.v_at(0, 299, 7)), -rounded);
  EXPECT_EQ(kv.k_row(1, 0)[0], 0) << "layer 1 position 0 dimension 0 is 0.0";
  kv.release();
  EXPECT_EQ(pool.stats().blocks_in_use, 0);
}

TEST(KvCache, StoringARowInDimensionRangesGivesTheBitsOfOneStore) {
  // 600 dimensions: ranges that cross the 256-value conversion chunks, an empty range, and values
  // that round to infinity, to a subnormal and to zero, and a NaN.
  constexpr int kDims = 600;
  engine::KvBlockPool pool(2, kDims, 0);
  engine::KvCache whole(pool, 64), parts(pool, 64);
  whole.prepare(0, 40);
  parts.prepare(0, 40);
  std::vector<float> k(kDims), v(kDims);
  for (int pos : {0, 1, 31, 32, 39}) {
    for (int d = 0; d < kDims; ++d) {
      k[static_cast<size_t>(d)] = std::sin(static_cast<float>(pos * kDims + d)) * 3.0f;
      v[static_cast<size_t>(d)] = std::cos(static_cast<float>(pos * kDims + d)) * 70000.0f;
    }
    k[5] = 1e-6f, v[6] = -1e-9f, v[7] = std::numeric_limits<float>::quiet_NaN(), k[8] = 1e30f;
    whole.store(1, pos, k.data(), v.data());
    for (const auto& [d0, d1] : {std::pair{0, 100}, std::pair{100, 100}, std::pair{100, 513}, std::pair{513, kDims}})
      parts.store(1, pos, k.data(), v.data(), d0, d1);
    for (int d = 0; d < kDims; ++d) {
      ASSERT_EQ(parts.k_row(1, pos)[d], whole.k_row(1, pos)[d]) << "position " << pos << " dimension " << d;
      ASSERT_EQ(parts.v_at(1, pos, d), whole.v_at(1, pos, d)) << "position " << pos << " dimension " << d;
      ASSERT_EQ(whole.k_row(1, pos)[d], kernels::fp32_to_fp16(k[static_cast<size_t>(d)]));
      ASSERT_EQ(whole.v_at(1, pos, d), kernels::fp32_to_fp16(v[static_cast<size_t>(d)]));
    }
  }
  EXPECT_EQ(whole.k_row(0, 0)[0], 0) << "layer 0 is untouched";
}

TEST(KvCache, ASharedBlockIsCopiedBeforeItIsWritten) {
  engine::KvBlockPool pool(1, 8, 3);
  engine::KvCache a(pool, 128), b(pool, 128);
  std::vector<float> one(8, 1.0f), two(8, 2.0f);
  a.prepare(0, 40);
  for (int pos = 0; pos < 40; ++pos) a.store(0, pos, one.data(), one.data());
  b.share(a.blocks());
  EXPECT_EQ(pool.stats().blocks_in_use, 2);
  EXPECT_EQ(b.blocks_needed(40, 41), 1) << "block 1 is shared: writing it takes a copy";
  b.prepare(40, 41);
  b.store(0, 40, two.data(), two.data());
  EXPECT_EQ(kernels::fp16_to_fp32(a.k_row(0, 39)[0]), 1.0f);
  EXPECT_EQ(kernels::fp16_to_fp32(b.k_row(0, 39)[0]), 1.0f) << "the copy keeps the shared entries";
  EXPECT_EQ(a.k_row(0, 40)[0], 0) << "the writer's copy took the write, not the original";
  EXPECT_EQ(kernels::fp16_to_fp32(b.v_at(0, 40, 3)), 2.0f);
  EXPECT_EQ(a.blocks()[0], b.blocks()[0]);
  EXPECT_EQ(pool.stats().blocks_in_use, 3);
  // The pool is full: a write to the still-shared block 0 cannot be copied, and nothing changes.
  EXPECT_EQ(error_of([&] { b.prepare(0, 1); }), codes::kResourceExhausted);
  EXPECT_EQ(a.blocks()[0], b.blocks()[0]);
  EXPECT_EQ(kernels::fp16_to_fp32(b.k_row(0, 40)[0]), 2.0f);
}

std::vector<Token> seeded_tokens(int n, int n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(1, n_vocab - 1);
  std::vector<Token> t(static_cast<size_t>(n));
  for (auto& x : t) x = d(rng);
  return t;
}

TEST(ContextReserve, AContextWaitsForBlocksAndNeverFailsMidway) {
  const std::string path = testing::model_path("stories260K");
  auto probe = Model::load(path, {.n_threads = 1});
  const uint64_t block = probe->kv_cache_stats().block_bytes;
  EXPECT_EQ(probe->kv_cache_stats().blocks_total, 0) << "no budget, no kv_cache_bytes: no limit";
  EXPECT_EQ(error_of([&] { Model::load(path, {.n_threads = 1, .kv_cache_bytes = block - 1}); }),
            codes::kInvalidArgument)
      << "a pool smaller than one block";

  auto m = Model::load(path, {.n_threads = 1, .kv_cache_bytes = 4 * block});
  EXPECT_EQ(m->kv_cache_stats().blocks_total, 4);
  EXPECT_EQ(error_of([&] { Context c(m, {.n_ctx = 129}); }), codes::kInvalidArgument) << "more than the pool";
  Context first(m, {});
  EXPECT_EQ(first.n_ctx(), 128) << "the default context is capped to the pool";
  const int n_vocab = m->info().n_vocab;

  ASSERT_TRUE(first.reserve(100, Clock::now()));  // 4 blocks
  EXPECT_EQ(m->kv_cache_stats().blocks_reserved, 4);
  first.eval(seeded_tokens(70, n_vocab, 1));
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 3);
  EXPECT_EQ(m->kv_cache_stats().blocks_reserved, 1);
  ASSERT_TRUE(first.reserve(100, Clock::now())) << "held and reserved blocks count";
  EXPECT_EQ(m->kv_cache_stats().blocks_reserved, 1);
  EXPECT_EQ(error_of([&] { first.reserve(129, Clock::now()); }), codes::kInvalidArgument);

  Context second(m, {});
  EXPECT_FALSE(second.reserve(10, Clock::now())) << "nothing is free";
  EXPECT_EQ(error_of([&] { second.eval(seeded_tokens(5, n_vocab, 2)); }), codes::kResourceExhausted);
  EXPECT_EQ(second.n_past(), 0);

  std::atomic<bool> granted{false};
  std::thread waiter([&] { granted = second.reserve(40, Clock::now() + 60s); });
  while (m->kv_cache_stats().waiting == 0) std::this_thread::yield();
  first.eval(seeded_tokens(30, n_vocab, 3));  // its reserved block: it never fails midway
  EXPECT_EQ(first.n_past(), 100);
  EXPECT_FALSE(granted.load());
  first.wipe();
  waiter.join();
  EXPECT_TRUE(granted.load());
  second.eval(seeded_tokens(40, n_vocab, 4));
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 2);
  EXPECT_EQ(m->kv_cache_stats().blocks_reserved, 0);
  second.reset();
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 0);
}

}  // namespace kv_cache_test
}  // namespace a3s::power

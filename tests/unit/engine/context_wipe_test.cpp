// Wiping a context when a request ends: after a generation, Context::wipe() wipes every KV block the
// context held while it is still mapped and gives it back to the pool, the token history is empty,
// and the context still works; KV buffers are zero-filled and wiped when released.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "a3s/power/engine.h"
#include "crypto/secure_memory.h"
#include "engine/context_inspect.h"
#include "engine/generator.h"
#include "engine/kv_buffer.h"
#include "support/gguf_builder.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {
namespace {

bool all_zero(const engine::KvBuffer& b) {
  return std::all_of(b.data(), b.data() + b.size(), [](uint16_t x) { return x == 0; });
}

// Counts non-zero values over every KV block the context holds; `values` gets the total.
size_t nonzero_kv_values(const Context& ctx, size_t* values) {
  const engine::KvCache& kv = engine::kv_cache_of(ctx);
  size_t nonzero = 0;
  *values = 0;
  for (const auto& b : kv.blocks()) {
    *values += b->size();
    nonzero += static_cast<size_t>(std::count_if(b->data(), b->data() + b->size(), [](uint16_t x) { return x != 0; }));
  }
  return nonzero;
}

struct Wipe {
  const void* p;
  size_t n;
  bool zero;
};
std::vector<Wipe>* g_wipes = nullptr;

void observe(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  g_wipes->push_back({p, n, std::all_of(b, b + n, [](uint8_t x) { return x == 0; })});
}

TEST(ContextWipe, GenerationThenWipeWipesAndFreesEveryKvBlock) {
  auto m = Model::load(testing::model_path("stories260K"), {.n_threads = 2});
  Context ctx(m, {.n_ctx = 128});
  GenerationRequest req;
  req.prompt = m->tokenizer().encode("Once upon a time there was a canary", true, false);
  req.max_tokens = 40;
  req.sampling.seed = 7;
  GenerationResult r = generate(ctx, req, [](std::string_view, Token) { return true; });
  ASSERT_GT(ctx.n_past(), engine::kKvBlockTokens) << "the sequence spans more than one block";

  size_t values = 0;
  ASSERT_GT(nonzero_kv_values(ctx, &values), 0u) << "the generation stored keys and values";
  const engine::KvCache& kv = engine::kv_cache_of(ctx);
  std::vector<const void*> held;
  for (const auto& b : kv.blocks()) held.push_back(b->data());
  ASSERT_GE(held.size(), 2u);
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, static_cast<int64_t>(held.size()));
  const uint64_t wiped_before = m->kv_cache_stats().blocks_wiped;

  std::vector<Wipe> wipes;
  g_wipes = &wipes;
  crypto::set_wipe_observer_for_testing(observe);
  ctx.wipe();
  crypto::set_wipe_observer_for_testing(nullptr);
  g_wipes = nullptr;
  EXPECT_EQ(ctx.n_past(), 0);
  EXPECT_EQ(kv.n_blocks(), 0) << "the blocks go back to the pool";
  for (const void* p : held) {
    auto it = std::find_if(wipes.begin(), wipes.end(), [&](const Wipe& w) { return w.p == p; });
    ASSERT_NE(it, wipes.end()) << "every block is wiped before it is freed";
    EXPECT_EQ(it->n, m->kv_cache_stats().block_bytes);
    EXPECT_TRUE(it->zero);
  }
  const KvCacheStats after = m->kv_cache_stats();
  EXPECT_EQ(after.blocks_in_use, 0);
  EXPECT_EQ(after.blocks_wiped, wiped_before + held.size());

  // The context serves the next request as a fresh one: same output for the same request.
  GenerationResult again = generate(ctx, req, [](std::string_view, Token) { return true; });
  EXPECT_EQ(again.text, r.text);
  EXPECT_EQ(again.tokens, r.tokens);
}

TEST(KvBuffer, IsZeroFilledAndWipedInPlace) {
  engine::KvBuffer b(1000);
  ASSERT_EQ(b.size(), 1000u);
  EXPECT_TRUE(all_zero(b));
  std::fill(b.data(), b.data() + b.size(), uint16_t{0x3c00});
  b.wipe();
  EXPECT_TRUE(all_zero(b));
}

TEST(KvBuffer, ReleasedStorageIsWipedWhileStillMapped) {
  std::vector<Wipe> wipes;
  g_wipes = &wipes;
  crypto::set_wipe_observer_for_testing(observe);
  const void* where = nullptr;
  {
    engine::KvBuffer b(4096);
    std::fill(b.data(), b.data() + b.size(), uint16_t{0x1234});
    where = b.data();
    engine::KvBuffer moved_into;
    moved_into = std::move(b);  // the storage moves; it is wiped when moved_into is destroyed
  }
  crypto::set_wipe_observer_for_testing(nullptr);
  g_wipes = nullptr;
  ASSERT_EQ(wipes.size(), 1u);
  EXPECT_EQ(wipes[0].p, where);
  EXPECT_EQ(wipes[0].n, 4096 * sizeof(uint16_t));
  EXPECT_TRUE(wipes[0].zero);
}

}  // namespace
}  // namespace a3s::power

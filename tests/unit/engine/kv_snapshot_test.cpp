// KV snapshots of a prompt prefix (Context::snapshot / restore): a context restored from a snapshot
// and given only the rest of the prompt returns logits bitwise equal to evaluating the whole prompt
// in one go, on several models and weight types; a partial restore (a shorter prefix of the
// snapshot) does too; out-of-range and cross-model restores are refused; a snapshot shares the full
// KV blocks and copies the partial one with the positions beyond the prefix zeroed, and every block
// is wiped when its last holder frees it. A fork shares every block and copies one on write.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "engine/context_inspect.h"
#include "support/gguf_builder.h"

namespace a3s::power {
namespace kv_snapshot_test {

std::vector<Token> seeded_tokens(int n, int n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(1, n_vocab - 1);
  std::vector<Token> t(static_cast<size_t>(n));
  for (auto& x : t) x = d(rng);
  return t;
}

std::vector<float> copy(std::span<const float> s) { return {s.begin(), s.end()}; }

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class KvSnapshotModels : public ::testing::TestWithParam<const char*> {};

TEST_P(KvSnapshotModels, RestoredPrefixPlusSuffixGivesTheWholePromptsLogits) {
  auto m = Model::load(testing::model_path(GetParam()), {.n_threads = 2, .n_batch = 64});
  const int n_vocab = m->info().n_vocab;
  const std::vector<Token> prompt = seeded_tokens(90, n_vocab, 11);

  Context whole(m, {.n_ctx = 256});
  const std::vector<float> expected = copy(whole.eval(prompt));

  for (int cut : {1, 40, 89}) {
    SCOPED_TRACE(cut);
    auto snap = whole.snapshot(cut);
    ASSERT_EQ(snap->n_tokens(), cut);
    EXPECT_TRUE(std::equal(snap->tokens().begin(), snap->tokens().end(), prompt.begin()));
    EXPECT_GT(snap->bytes(), 0u);

    Context other(m, {.n_ctx = 256});
    other.eval(seeded_tokens(20, n_vocab, 99));  // a previous sequence is forgotten by restore
    other.restore(*snap, cut);
    ASSERT_EQ(other.n_past(), cut);
    EXPECT_TRUE(std::equal(other.tokens().begin(), other.tokens().end(), prompt.begin()));
    const std::vector<float> got = copy(other.eval(std::span<const Token>(prompt).subspan(static_cast<size_t>(cut))));
    EXPECT_TRUE(bitwise_equal(got, expected));
  }

  // A partial restore: the first 30 positions of an 89-position snapshot.
  auto snap = whole.snapshot(89);
  Context other(m, {.n_ctx = 256});
  other.restore(*snap, 30);
  ASSERT_EQ(other.n_past(), 30);
  EXPECT_TRUE(bitwise_equal(copy(other.eval(std::span<const Token>(prompt).subspan(30))), expected));
}

INSTANTIATE_TEST_SUITE_P(Models, KvSnapshotModels,
                         ::testing::Values("stories260K", "tiny-llama-F16", "tiny-llama-Q8_0", "tiny-llama-Q4_K_M",
                                           "tiny-qwen2-Q4_K_M"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(KvSnapshot, RefusesOutOfRangeAndOtherModels) {
  auto m = Model::load(testing::model_path("stories260K"), {.n_threads = 2});
  auto m2 = Model::load(testing::model_path("stories260K"), {.n_threads = 2});
  Context ctx(m, {.n_ctx = 64});
  EXPECT_THROW(ctx.snapshot(1), Error);  // nothing cached yet
  ctx.eval(seeded_tokens(10, m->info().n_vocab, 3));
  EXPECT_THROW(ctx.snapshot(0), Error);
  EXPECT_THROW(ctx.snapshot(11), Error);
  auto snap = ctx.snapshot(10);

  Context small(m, {.n_ctx = 8});
  EXPECT_THROW(small.restore(*snap, 8), Error) << "no room left to evaluate a token";
  Context same(m, {.n_ctx = 64});
  EXPECT_THROW(same.restore(*snap, 0), Error);
  EXPECT_THROW(same.restore(*snap, 11), Error);
  Context foreign(m2, {.n_ctx = 64});
  foreign.eval(seeded_tokens(3, m->info().n_vocab, 4));
  try {
    foreign.restore(*snap, 5);
    FAIL() << "a snapshot of another model was restored";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  EXPECT_EQ(foreign.n_past(), 0);
}

std::vector<const void*>* g_wiped = nullptr;
void record_wipe(const void* p, size_t) { g_wiped->push_back(p); }

TEST(KvSnapshot, SharesFullBlocksCopiesThePartialOneAndIsWipedWhenFreed) {
  auto m = Model::load(testing::model_path("stories260K"), {.n_threads = 2});
  Context ctx(m, {.n_ctx = 128});
  ctx.eval(seeded_tokens(50, m->info().n_vocab, 5));  // blocks 0 (positions 0-31) and 1 (32-49)
  const engine::KvCache& kv = engine::kv_cache_of(ctx);
  ASSERT_EQ(kv.n_blocks(), 2);
  auto snap = ctx.snapshot(40);
  const auto& blocks = engine::snapshot_blocks(*snap);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], kv.blocks()[0]) << "a full block is shared, not copied";
  EXPECT_NE(blocks[1], kv.blocks()[1]) << "the partial block is a copy";
  EXPECT_EQ(snap->bytes(), 2 * m->kv_cache_stats().block_bytes);
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 3);

  // The copy holds positions 32-39 as the context does, and zeros from position 40 on (the
  // context's positions 40-49 are not part of the prefix).
  const int e = kv.n_embd_kv(), B = engine::kKvBlockTokens;
  const uint16_t* copy_data = blocks[1]->data();
  const uint16_t* live = kv.blocks()[1]->data();
  for (int il = 0; il < kv.n_layer(); ++il) {
    const size_t base = static_cast<size_t>(il) * 2 * B * e;
    for (int j = 0; j < B; ++j)
      for (int d = 0; d < e; ++d) {
        const size_t k_at = base + static_cast<size_t>(j) * e + d, v_at = base + static_cast<size_t>(B) * e + d * B + j;
        if (j < 8) {
          ASSERT_EQ(copy_data[k_at], live[k_at]);
          ASSERT_EQ(copy_data[v_at], live[v_at]);
        } else {
          ASSERT_EQ(copy_data[k_at], 0) << "layer " << il << " position " << 32 + j;
          ASSERT_EQ(copy_data[v_at], 0) << "layer " << il << " position " << 32 + j;
        }
      }
  }
  size_t live_nonzero = 0;
  for (int j = 8; j < 18; ++j) live_nonzero += live[static_cast<size_t>(j) * e] != 0;
  EXPECT_GT(live_nonzero, 0u) << "the context's positions 40-49 hold data (the zeros above are the copy's)";

  // Freed by their last holders, every block is wiped while still mapped.
  std::vector<const void*> block_data;
  for (const auto& b : blocks) block_data.push_back(b->data());
  block_data.push_back(kv.blocks()[1]->data());
  std::vector<const void*> wiped;
  g_wiped = &wiped;
  crypto::set_wipe_observer_for_testing(record_wipe);
  const uint64_t snapshots_wiped = KvSnapshot::wiped_total();
  ctx.wipe();  // the context's partial block goes; block 0 lives on in the snapshot
  const bool block0_kept = std::find(wiped.begin(), wiped.end(), block_data[0]) == wiped.end();
  snap.reset();
  crypto::set_wipe_observer_for_testing(nullptr);
  g_wiped = nullptr;
  EXPECT_TRUE(block0_kept) << "a block is wiped only when its last holder lets go";
  for (const void* p : block_data) EXPECT_NE(std::find(wiped.begin(), wiped.end(), p), wiped.end());
  EXPECT_EQ(KvSnapshot::wiped_total(), snapshots_wiped + 1);
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 0);
}

TEST(ContextFork, ChildrenShareTheBlocksAndCopyOnWrite) {
  auto m = Model::load(testing::model_path("tiny-llama-Q8_0"), {.n_threads = 2, .n_batch = 16});
  const int n_vocab = m->info().n_vocab;
  const std::vector<Token> prompt = seeded_tokens(45, n_vocab, 21);
  const std::vector<Token> a = seeded_tokens(30, n_vocab, 22), b = seeded_tokens(30, n_vocab, 23);
  auto whole = [&](const std::vector<Token>& suffix) {
    Context c(m, {.n_ctx = 128});
    std::vector<Token> all = prompt;
    all.insert(all.end(), suffix.begin(), suffix.end());
    return copy(c.eval(all));
  };
  const std::vector<float> want_a = whole(a), want_b = whole(b);

  Context parent(m, {.n_ctx = 128});
  parent.eval(prompt);
  const int64_t held = m->kv_cache_stats().blocks_in_use;
  EXPECT_EQ(held, 2);
  std::unique_ptr<Context> child = parent.fork();
  EXPECT_EQ(child->n_past(), parent.n_past());
  EXPECT_TRUE(std::equal(child->tokens().begin(), child->tokens().end(), prompt.begin()));
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, held) << "a fork copies no block";

  // Each continues on its own: the shared partial block is copied by the first writer (and the
  // other then owns the original), the full block stays shared.
  EXPECT_TRUE(bitwise_equal(copy(child->eval(b)), want_b));
  EXPECT_TRUE(bitwise_equal(copy(parent.eval(a)), want_a));
  EXPECT_EQ(engine::kv_cache_of(parent).blocks()[0], engine::kv_cache_of(*child).blocks()[0]);
  EXPECT_NE(engine::kv_cache_of(parent).blocks()[1], engine::kv_cache_of(*child).blocks()[1]);
  EXPECT_EQ(m->kv_cache_stats().blocks_in_use, 1 + 2 + 2);

  // A fork of a fork after its parent is gone still holds the whole sequence.
  std::unique_ptr<Context> grandchild = child->fork();
  child.reset();
  const std::vector<Token> more = seeded_tokens(5, n_vocab, 24);
  std::vector<Token> b_more = b;
  b_more.insert(b_more.end(), more.begin(), more.end());
  EXPECT_TRUE(bitwise_equal(copy(grandchild->eval(more)), whole(b_more)));
}

}  // namespace kv_snapshot_test
}  // namespace a3s::power

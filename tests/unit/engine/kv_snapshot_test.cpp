// KV snapshots of a prompt prefix (Context::snapshot / restore): a context restored from a snapshot
// and given only the rest of the prompt returns logits bitwise equal to evaluating the whole prompt
// in one go, on several models and weight types; a partial restore (a shorter prefix of the
// snapshot) does too; out-of-range and cross-model restores are refused; snapshot storage holds the
// copied rows and is zero once wiped, and every freed snapshot is counted as wiped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
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

size_t nonzero(const engine::KvBuffer& b) {
  return static_cast<size_t>(std::count_if(b.data(), b.data() + b.size(), [](uint16_t x) { return x != 0; }));
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

TEST(KvSnapshot, StorageIsWipedAndEveryFreedSnapshotIsCounted) {
  auto m = Model::load(testing::model_path("stories260K"), {.n_threads = 2});
  Context ctx(m, {.n_ctx = 64});
  ctx.eval(seeded_tokens(20, m->info().n_vocab, 5));
  auto snap = ctx.snapshot(20);
  const int n_layer = m->info().n_layer;
  size_t before = 0;
  for (int il = 0; il < n_layer; ++il) before += nonzero(engine::snapshot_k(*snap, il)) + nonzero(engine::snapshot_v(*snap, il));
  ASSERT_GT(before, 0u) << "the snapshot holds the copied keys and values";

  engine::wipe_snapshot_for_testing(*snap);
  for (int il = 0; il < n_layer; ++il) {
    EXPECT_EQ(nonzero(engine::snapshot_k(*snap, il)), 0u);
    EXPECT_EQ(nonzero(engine::snapshot_v(*snap, il)), 0u);
  }
  const uint64_t wiped = KvSnapshot::wiped_total();
  snap.reset();
  EXPECT_EQ(KvSnapshot::wiped_total(), wiped + 1);
}

}  // namespace kv_snapshot_test
}  // namespace a3s::power

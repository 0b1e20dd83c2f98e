// Context: sizes, limits, bad input, batching, reset and truncate.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "support/gguf_builder.h"

namespace a3s::power {
namespace {

std::shared_ptr<Model> stories(int n_batch = 512) {
  return Model::load(testing::model_path("stories260K"), {.n_threads = 2, .n_batch = n_batch});
}

std::string code_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return "";
}

TEST(Context, DefaultSizeIsTrainedContextCappedAt4096) {
  auto m = stories();
  Context ctx(m);
  EXPECT_EQ(ctx.n_ctx(), 2048);  // stories260K trained context
  EXPECT_EQ(ctx.n_past(), 0);
  Context small(m, {.n_ctx = 16});
  EXPECT_EQ(small.n_ctx(), 16);
  EXPECT_EQ(code_of([&] { Context bad(m, {.n_ctx = -1}); }), "invalid_argument");
}

TEST(Context, AContextWhoseKvCacheExceedsThePhysicalMemoryIsRefusedAtOnce) {
  auto m = stories();
  // stories260K: 5 layers × 2 × 32 K/V values × 2 bytes = 640 bytes per position; 2e9 positions need
  // about 1.2 TiB.
  try {
    Context huge(m, {.n_ctx = 2'000'000'000});
    FAIL() << "expected invalid_argument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("KV cache, more than this machine's memory"), std::string::npos) << e.what();
  }
  Context fits(m, {.n_ctx = 100'000});  // 61 MiB of KV cache at most, allocated as it fills
  EXPECT_EQ(fits.n_ctx(), 100'000);
}

TEST(Context, ModelInfoDescribesTheFile) {
  auto m = stories();
  const ModelInfo& i = m->info();
  EXPECT_EQ(i.architecture, "llama");
  EXPECT_EQ(i.n_vocab, 512);
  EXPECT_EQ(i.n_embd, 64);
  EXPECT_EQ(i.n_layer, 5);
  EXPECT_EQ(i.n_head, 8);
  EXPECT_EQ(i.n_head_kv, 4);
  EXPECT_EQ(i.n_ff, 172);
  EXPECT_EQ(i.n_ctx_train, 2048);
  EXPECT_EQ(i.file_type, "F32");
  EXPECT_EQ(i.file_size, 1185376u);
  EXPECT_GT(i.n_params, 200000u);
  EXPECT_FALSE(i.chat_template.has_value());
  auto q = Model::load(testing::model_path("tiny-qwen2-Q4_K_M"), {.n_threads = 1});
  EXPECT_EQ(q->info().architecture, "qwen2");
  EXPECT_EQ(q->info().file_type, "Q4_K");
}

TEST(Context, EvalBeyondContextThrowsAndKeepsState) {
  auto m = stories();
  Context ctx(m, {.n_ctx = 8});
  std::vector<Token> five = {1, 403, 407, 261, 378};
  ctx.eval(five);
  EXPECT_EQ(ctx.n_past(), 5);
  std::vector<Token> four = {10, 11, 12, 13};
  EXPECT_EQ(code_of([&] { ctx.eval(four); }), "context_length_exceeded");
  EXPECT_EQ(ctx.n_past(), 5);
  std::vector<Token> three = {10, 11, 12};
  EXPECT_NO_THROW(ctx.eval(three));
  EXPECT_EQ(ctx.n_past(), 8);
  std::vector<Token> one = {5};
  EXPECT_EQ(code_of([&] { ctx.eval(one); }), "context_length_exceeded");
}

TEST(Context, RejectsBadTokensAndEmptyInput) {
  auto m = stories();
  Context ctx(m, {.n_ctx = 8});
  std::vector<Token> bad = {1, 512};
  EXPECT_EQ(code_of([&] { ctx.eval(bad); }), "invalid_argument");
  std::vector<Token> neg = {-1};
  EXPECT_EQ(code_of([&] { ctx.eval(neg); }), "invalid_argument");
  EXPECT_EQ(code_of([&] { ctx.eval({}); }), "invalid_argument");
  EXPECT_EQ(ctx.n_past(), 0);
}

double max_abs_diff(std::span<const float> a, std::span<const float> b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

TEST(Context, PrefillBatchSizeAndTokenByTokenDecodeAgree) {
  const std::vector<Token> toks = {1, 403, 407, 261, 378, 454, 223, 445, 252};
  Context big(stories(512), {.n_ctx = 32});
  auto a = big.eval(toks, true);
  std::vector<float> all(a.begin(), a.end());
  ASSERT_EQ(all.size(), toks.size() * 512);

  Context small(stories(2), {.n_ctx = 32});  // 5 prefill batches
  auto b = small.eval(toks, true);
  EXPECT_LT(max_abs_diff(b, all), 1e-3);

  Context one(stories(512), {.n_ctx = 32});
  for (size_t i = 0; i < toks.size(); ++i) {
    auto row = one.eval(std::span<const Token>(&toks[i], 1));
    ASSERT_EQ(row.size(), 512u);
    EXPECT_LT(max_abs_diff(row, std::span<const float>(all).subspan(i * 512, 512)), 1e-3) << "token " << i;
  }
  EXPECT_EQ(one.n_past(), static_cast<int>(toks.size()));
  EXPECT_EQ(std::vector<Token>(one.tokens().begin(), one.tokens().end()), toks);

  // Without all_logits only the last row comes back.
  Context last(stories(4), {.n_ctx = 32});
  auto l = last.eval(toks);
  ASSERT_EQ(l.size(), 512u);
  EXPECT_LT(max_abs_diff(l, std::span<const float>(all).subspan((toks.size() - 1) * 512, 512)), 1e-3);
}

std::vector<float> copy(std::span<const float> s) { return {s.begin(), s.end()}; }

TEST(Context, ResetAndTruncateForgetTokens) {
  auto m = stories();
  const std::vector<Token> toks = {1, 403, 407, 261, 378};
  Context ctx(m, {.n_ctx = 16});
  const std::vector<float> first = copy(ctx.eval(toks));

  ctx.reset();
  EXPECT_EQ(ctx.n_past(), 0);
  EXPECT_TRUE(ctx.tokens().empty());
  EXPECT_LT(max_abs_diff(ctx.eval(toks), first), 1e-6);

  // Truncate to 3 tokens and re-evaluate the last two: same logits as before.
  ctx.truncate(3);
  EXPECT_EQ(ctx.n_past(), 3);
  EXPECT_LT(max_abs_diff(ctx.eval(std::span<const Token>(toks).subspan(3)), first), 1e-6);
  EXPECT_THROW(ctx.truncate(6), Error);
  EXPECT_THROW(ctx.truncate(-1), Error);

  // A different continuation after truncation gives different logits.
  ctx.truncate(4);
  const std::vector<Token> other = {30};
  EXPECT_GT(max_abs_diff(ctx.eval(other), first), 1e-3);
}

}  // namespace
}  // namespace a3s::power

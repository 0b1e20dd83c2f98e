// The generation loop on stories260K: greedy reference, limits, stop strings, sampling, cancel.
#include <gtest/gtest.h>

#include <atomic>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "engine/generator.h"
#include "support/gguf_builder.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {
namespace {

const char* kGreedyText = ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw";

class Generator : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(testing::model_path("stories260K"), {.n_threads = 2}); }
  static void TearDownTestSuite() { model_.reset(); }

  static GenerationRequest greedy(int max_tokens) {
    GenerationRequest r;
    r.prompt = model_->tokenizer().encode("Once upon a time", true, false);
    r.sampling.temperature = 0.0f;
    r.max_tokens = max_tokens;
    return r;
  }

  static std::shared_ptr<Model> model_;
};
std::shared_ptr<Model> Generator::model_;

TEST_F(Generator, GreedyMatchesLlamaCppReference) {
  Context ctx(model_, {.n_ctx = 128});
  GenerationRequest req = greedy(32);
  EXPECT_EQ(req.prompt, (std::vector<Token>{1, 403, 407, 261, 378}));
  std::string streamed;
  int calls = 0;
  GenerationResult r = generate(ctx, req, [&](std::string_view d, Token) {
    streamed.append(d);
    ++calls;
    return true;
  });
  EXPECT_EQ(r.finish, FinishReason::Length);
  EXPECT_EQ(r.tokens.size(), 32u);
  EXPECT_EQ(r.text, kGreedyText);
  EXPECT_EQ(streamed, r.text);
  EXPECT_EQ(calls, 32);
  EXPECT_EQ(r.n_prompt_tokens, 5);
  EXPECT_STREQ(to_string(r.finish), "length");
}

TEST_F(Generator, LogprobsComeForEachGeneratedTokenBeforeItsText) {
  Context ctx(model_, {.n_ctx = 128});
  GenerationRequest req = greedy(12);
  req.sampling.temperature = 0.7f;  // sampled: the values do not depend on the sampling settings
  req.sampling.seed = 3;
  req.logprobs = 4;
  std::vector<TokenLogprobs> got;
  size_t reported_before_delta = 0;
  bool order_ok = true;
  req.on_logprobs = [&](const TokenLogprobs& lp) { got.push_back(lp); };
  GenerationResult r = generate(ctx, req, [&](std::string_view, Token t) {
    // Every delta of a generated token comes after that token's log probabilities.
    if (got.empty() || got.back().chosen.id != t) order_ok = false;
    reported_before_delta = got.size();
    return true;
  });
  EXPECT_TRUE(order_ok);
  EXPECT_EQ(reported_before_delta, got.size());
  ASSERT_EQ(got.size(), r.tokens.size());
  // Each value is the log-softmax of the raw logits of the step that produced the token.
  Context check(model_, {.n_ctx = 128});
  std::vector<Token> seq = req.prompt;
  seq.insert(seq.end(), r.tokens.begin(), r.tokens.end());
  const std::span<const float> rows = check.eval(seq, /*all_logits=*/true);
  const size_t n_vocab = static_cast<size_t>(model_->info().n_vocab);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].chosen.id, r.tokens[i]);
    EXPECT_EQ(got[i].chosen.piece, model_->tokenizer().token_to_piece(r.tokens[i], true));
    const sampling::LogSoftmax ls(rows.subspan((req.prompt.size() - 1 + i) * n_vocab, n_vocab));
    EXPECT_NEAR(got[i].chosen.logprob, ls.logprob(r.tokens[i]), 1e-4) << i;
    ASSERT_EQ(got[i].top.size(), 4u);
    const auto top = ls.top(4);
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(got[i].top[k].id, top[k].id);
      EXPECT_NEAR(got[i].top[k].logprob, top[k].logprob, 1e-4);
    }
  }
  // Off by default: no callback.
  Context quiet(model_, {.n_ctx = 128});
  GenerationRequest off = greedy(4);
  int calls = 0;
  off.on_logprobs = [&](const TokenLogprobs&) { ++calls; };
  generate(quiet, off);
  EXPECT_EQ(calls, 0);
}

TEST_F(Generator, FullContextEndsWithLengthNotError) {
  Context ctx(model_, {.n_ctx = 10});
  GenerationResult r = generate(ctx, greedy(-1));
  EXPECT_EQ(r.finish, FinishReason::Length);
  // 5 prompt tokens + 5 generated fill the cache; the 6th generated token needs no evaluation.
  EXPECT_EQ(r.tokens.size(), 6u);
  EXPECT_EQ(ctx.n_past(), 10);

  Context tiny(model_, {.n_ctx = 4});
  try {
    generate(tiny, greedy(8));
    ADD_FAILURE() << "prompt longer than the context must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "context_length_exceeded");
  }
}

TEST_F(Generator, MaxTokensZeroAndSmall) {
  Context ctx(model_, {.n_ctx = 64});
  GenerationResult r0 = generate(ctx, greedy(0));
  EXPECT_EQ(r0.finish, FinishReason::Length);
  EXPECT_TRUE(r0.tokens.empty());
  ctx.reset();
  GenerationResult r3 = generate(ctx, greedy(3));
  EXPECT_EQ(r3.finish, FinishReason::Length);
  EXPECT_EQ(r3.tokens.size(), 3u);
  EXPECT_EQ(r3.text, std::string(kGreedyText).substr(0, r3.text.size()));
}

TEST_F(Generator, StopStringsAcrossTokensAreNeverEmitted) {
  for (const std::string stop : {"little girl", "Lily. She", "y. S", "park"}) {
    Context ctx(model_, {.n_ctx = 64});
    GenerationRequest req = greedy(32);
    req.stop = {"never-appears", stop};
    std::string streamed;
    GenerationResult r = generate(ctx, req, [&](std::string_view d, Token) {
      streamed.append(d);
      return true;
    });
    const std::string full = kGreedyText;
    EXPECT_EQ(r.finish, FinishReason::Stop) << stop;
    EXPECT_EQ(r.text, full.substr(0, full.find(stop))) << stop;
    EXPECT_EQ(streamed, r.text) << stop;
    EXPECT_EQ(r.stop_index, 1) << stop;  // which stop string ended it
  }
  // The earliest match wins, whatever its place in the list; a length finish names none.
  Context ctx(model_, {.n_ctx = 64});
  GenerationRequest req = greedy(32);
  req.stop = {"park", "", "little"};
  EXPECT_EQ(generate(ctx, req).stop_index, 2);
  Context plain(model_, {.n_ctx = 64});
  EXPECT_EQ(generate(plain, greedy(4)).stop_index, -1);
}

TEST_F(Generator, StopPrefixThatNeverCompletesIsFlushed) {
  Context ctx(model_, {.n_ctx = 64});
  GenerationRequest req = greedy(32);
  req.stop = {"saw them"};  // "saw" ends the greedy text: held back, then emitted at the end
  std::string streamed;
  GenerationResult r = generate(ctx, req, [&](std::string_view d, Token) {
    streamed.append(d);
    return true;
  });
  EXPECT_EQ(r.finish, FinishReason::Length);
  EXPECT_EQ(r.text, kGreedyText);
  EXPECT_EQ(streamed, r.text);
}

TEST_F(Generator, SeededSamplingReproduces) {
  auto run = [&](uint64_t seed) {
    Context ctx(model_, {.n_ctx = 64});
    GenerationRequest req = greedy(24);
    req.sampling.temperature = 1.0f;
    req.sampling.top_k = 0;
    req.sampling.top_p = 1.0f;
    req.sampling.min_p = 0.0f;
    req.sampling.seed = seed;
    GenerationResult r = generate(ctx, req);
    EXPECT_EQ(r.seed, seed);
    return r.tokens;
  };
  const auto a = run(42);
  EXPECT_EQ(a, run(42));
  bool any_differs = false;
  for (uint64_t s = 1; s <= 4; ++s) any_differs |= run(s) != a;
  EXPECT_TRUE(any_differs);
}

TEST_F(Generator, TopKOneEqualsGreedy) {
  Context g(model_, {.n_ctx = 64});
  const auto greedy_tokens = generate(g, greedy(16)).tokens;
  Context ctx(model_, {.n_ctx = 64});
  GenerationRequest req = greedy(16);
  req.sampling.temperature = 0.9f;
  req.sampling.top_k = 1;
  req.sampling.seed = 7;
  EXPECT_EQ(generate(ctx, req).tokens, greedy_tokens);
}

TEST_F(Generator, CallbackAndFlagCancel) {
  Context ctx(model_, {.n_ctx = 64});
  int n = 0;
  GenerationResult r = generate(ctx, greedy(32), [&](std::string_view, Token) { return ++n < 3; });
  EXPECT_EQ(r.finish, FinishReason::Cancelled);
  EXPECT_EQ(r.tokens.size(), 3u);

  std::atomic<bool> cancel{true};
  Context ctx2(model_, {.n_ctx = 64});
  GenerationRequest req = greedy(32);
  req.cancel = &cancel;
  GenerationResult r2 = generate(ctx2, req);
  EXPECT_EQ(r2.finish, FinishReason::Cancelled);
  EXPECT_TRUE(r2.tokens.empty());
}

TEST_F(Generator, ReusesCachedPromptPrefix) {
  Context ctx(model_, {.n_ctx = 64});
  const GenerationResult first = generate(ctx, greedy(8));
  EXPECT_EQ(ctx.n_past(), 5 + 7);
  // Same prompt again on the warm context: only the cached prefix is reused, result identical.
  const GenerationResult again = generate(ctx, greedy(8));
  EXPECT_EQ(again.tokens, first.tokens);
  // A prompt that extends the cached sequence continues from it.
  GenerationRequest ext = greedy(4);
  ext.prompt.insert(ext.prompt.end(), first.tokens.begin(), first.tokens.begin() + 4);
  Context fresh(model_, {.n_ctx = 64});
  EXPECT_EQ(generate(ctx, ext).tokens, generate(fresh, ext).tokens);
}

TEST_F(Generator, RejectsEmptyAndOutOfRangePrompts) {
  Context ctx(model_, {.n_ctx = 64});
  GenerationRequest req = greedy(4);
  req.prompt.clear();
  EXPECT_THROW(generate(ctx, req), Error);
  req.prompt = {1, 9999};
  EXPECT_THROW(generate(ctx, req), Error);
  EXPECT_EQ(ctx.n_past(), 0);
}

}  // namespace
}  // namespace a3s::power

// The Sampler: greedy, the truncation chain end to end, penalties, seeding and parameter checks.
#include "sampling/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

// Parameters with every truncation off, temperature 1.
SamplingParams plain(uint64_t seed = 1) {
  SamplingParams p;
  p.temperature = 1.0f;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.seed = seed;
  return p;
}

std::vector<float> log_probs(const std::vector<double>& probs) {
  std::vector<float> l;
  for (double p : probs) l.push_back(static_cast<float>(std::log(p)));
  return l;
}

std::set<Token> kept_ids(const Sampler& s) {
  std::set<Token> ids;
  for (const auto& c : s.last_distribution()) ids.insert(c.id);
  return ids;
}

TEST(Sampler, GreedyIsArgmaxWithTiesToTheLowestId) {
  SamplingParams p;
  p.temperature = 0.0f;
  Sampler s(p, 5);
  EXPECT_TRUE(s.greedy());
  const std::vector<float> logits = {1.f, 3.f, -2.f, 3.f, 2.9f};
  EXPECT_EQ(s.sample(logits), 1);
  ASSERT_EQ(s.last_distribution().size(), 1u);
  EXPECT_DOUBLE_EQ(s.last_distribution()[0].p, 1.0);
  EXPECT_EQ(s.sample(std::vector<float>{-5.f, -5.f, -5.f, -5.f, -4.f}), 4);
}

TEST(Sampler, TopK1EqualsGreedyWhateverTheSeed) {
  const std::vector<float> logits = {0.1f, 0.3f, 0.25f, 0.3f, -1.f, 0.2f};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    SamplingParams p = plain(seed);
    p.top_k = 1;
    Sampler s(p, 6);
    EXPECT_TRUE(s.greedy());
    EXPECT_EQ(s.sample(logits), 1) << seed;
  }
}

TEST(Sampler, TopKKeepsKTokens) {
  SamplingParams p = plain();
  p.top_k = 3;
  Sampler s(p, 6);
  const std::vector<float> logits = {0.f, 5.f, 1.f, 4.f, 3.f, 2.f};
  for (int i = 0; i < 50; ++i) {
    const Token t = s.sample(logits);
    EXPECT_TRUE(t == 1 || t == 3 || t == 4) << t;
  }
  EXPECT_EQ(kept_ids(s), (std::set<Token>{1, 3, 4}));
  // Probabilities are the softmax over the three survivors.
  const auto d = s.last_distribution();
  const double z = std::exp(5.0) + std::exp(4.0) + std::exp(3.0);
  EXPECT_EQ(d[0].id, 1);
  EXPECT_NEAR(d[0].p, std::exp(5.0) / z, 1e-9);
  EXPECT_NEAR(d[2].p, std::exp(3.0) / z, 1e-9);
}

TEST(Sampler, TopPKeepsTheSmallestPrefixWithMassP) {
  const auto logits = log_probs({0.05, 0.5, 0.15, 0.3});
  SamplingParams p = plain();
  p.top_p = 0.79f;
  Sampler s(p, 4);
  (void)s.sample(logits);
  EXPECT_EQ(kept_ids(s), (std::set<Token>{1, 3}));
  EXPECT_NEAR(s.last_distribution()[0].p, 0.5 / 0.8, 1e-6);  // renormalised over the prefix
  p.top_p = 0.81f;
  Sampler s2(p, 4);
  (void)s2.sample(logits);
  EXPECT_EQ(kept_ids(s2), (std::set<Token>{1, 2, 3}));
}

TEST(Sampler, MinPDropsTokensBelowAFractionOfTheBest) {
  const auto logits = log_probs({0.05, 0.5, 0.15, 0.3});
  SamplingParams p = plain();
  p.min_p = 0.25f;  // threshold 0.125
  Sampler s(p, 4);
  (void)s.sample(logits);
  EXPECT_EQ(kept_ids(s), (std::set<Token>{1, 2, 3}));
  p.min_p = 0.61f;  // threshold 0.305
  Sampler s2(p, 4);
  (void)s2.sample(logits);
  EXPECT_EQ(kept_ids(s2), (std::set<Token>{1}));
}

TEST(Sampler, TopPAndMinPWithoutTopKSeeTheWholeVocabulary) {
  // min_p pre-filters before sorting; top_p must still normalise over every token.
  std::vector<double> probs(100, 0.5 / 98);
  probs[0] = 0.3;
  probs[1] = 0.2;
  SamplingParams p = plain();
  p.top_p = 0.503f;  // 0.3 + 0.2 = 0.5 < 0.503: needs a third token (0.0051 each)
  p.min_p = 0.001f;  // keeps everything
  Sampler s(p, 100);
  (void)s.sample(log_probs(probs));
  EXPECT_EQ(s.last_distribution().size(), 3u);
  p.min_p = 0.5f;  // only tokens >= 0.15: top_p cannot reach 0.503, min_p keeps 2
  Sampler s2(p, 100);
  (void)s2.sample(log_probs(probs));
  EXPECT_EQ(kept_ids(s2), (std::set<Token>{0, 1}));
}

TEST(Sampler, ChainOrderTopKThenTopPThenMinP) {
  // top_k 3 of {0.4, 0.3, 0.2, 0.1} renormalises to {4/9, 3/9, 2/9}; top_p 0.7 then needs two.
  const auto logits = log_probs({0.4, 0.3, 0.2, 0.1});
  SamplingParams p = plain();
  p.top_k = 3;
  p.top_p = 0.7f;
  Sampler s(p, 4);
  (void)s.sample(logits);
  EXPECT_EQ(kept_ids(s), (std::set<Token>{0, 1}));
}

TEST(Sampler, TemperatureSharpensOrFlattens) {
  const std::vector<float> logits = {2.f, 1.f, 0.f};
  auto best_p = [&](float t) {
    SamplingParams p = plain();
    p.temperature = t;
    Sampler s(p, 3);
    (void)s.sample(logits);
    return s.last_distribution()[0].p;
  };
  const double z_half = std::exp(4.0) + std::exp(2.0) + 1.0;
  EXPECT_NEAR(best_p(0.5f), std::exp(4.0) / z_half, 1e-9);
  EXPECT_GT(best_p(0.5f), best_p(1.0f));
  EXPECT_LT(best_p(2.0f), best_p(1.0f));
  EXPECT_NEAR(best_p(1000.f), 1.0 / 3.0, 1e-3);
}

TEST(Sampler, TemperatureAppliesAfterTopPAndMinP) {
  // At temperature 1, min_p 0.5 keeps {0.4, 0.3}; a high temperature must not bring back 0.1.
  const auto logits = log_probs({0.4, 0.3, 0.2, 0.1});
  SamplingParams p = plain();
  p.min_p = 0.5f;
  p.temperature = 50.f;
  Sampler s(p, 4);
  (void)s.sample(logits);
  EXPECT_EQ(kept_ids(s), (std::set<Token>{0, 1}));
}

TEST(Sampler, PenalisedLogitsAreWhatIsSampled) {
  SamplingParams p = plain();
  p.repeat_penalty = 2.0f;
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  Sampler s(p, 4);
  for (Token t : {0, 1, 0}) s.accept(t);
  // token 0: 2/2 - (2*0.5 + 0.25) = -0.25; token 1: -2*2 - 0.75 = -4.75; others untouched.
  (void)s.sample(std::vector<float>{2.f, -2.f, 1.f, 0.5f});
  std::map<Token, double> logit;
  for (const auto& c : s.last_distribution()) logit[c.id] = c.logit;
  EXPECT_FLOAT_EQ(static_cast<float>(logit[0]), -0.25f);
  EXPECT_FLOAT_EQ(static_cast<float>(logit[1]), -4.75f);
  EXPECT_FLOAT_EQ(static_cast<float>(logit[2]), 1.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(logit[3]), 0.5f);
}

TEST(Sampler, GreedyHonoursPenalties) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.repeat_penalty = 4.0f;
  Sampler s(p, 3);
  const std::vector<float> logits = {3.f, 1.f, 0.f};
  EXPECT_EQ(s.sample(logits), 0);
  s.accept(0);
  EXPECT_EQ(s.sample(logits), 1);  // 3 / 4 = 0.75 < 1
  EXPECT_EQ(s.sample(logits), 1);  // sample() itself does not record the token
}

TEST(Sampler, SameSeedReproducesTheDraws) {
  std::vector<float> logits(64);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i)) * 2.f;
  SamplingParams p;  // defaults: temperature 0.8, top_k 40, top_p 0.95, min_p 0.05
  p.seed = 1234;
  Sampler a(p, 64), b(p, 64);
  EXPECT_EQ(a.seed(), 1234u);
  std::vector<Token> ta, tb;
  for (int i = 0; i < 200; ++i) {
    ta.push_back(a.sample(logits));
    tb.push_back(b.sample(logits));
  }
  EXPECT_EQ(ta, tb);
  EXPECT_GT(std::set<Token>(ta.begin(), ta.end()).size(), 3u);  // it really sampled
}

TEST(Sampler, DifferentSeedsDifferOnAFlatDistribution) {
  const std::vector<float> flat(1000, 0.0f);
  auto run = [&](uint64_t seed) {
    Sampler s(plain(seed), 1000);
    std::vector<Token> out;
    for (int i = 0; i < 20; ++i) out.push_back(s.sample(flat));
    return out;
  };
  EXPECT_NE(run(1), run(2));
  EXPECT_EQ(run(3), run(3));
}

TEST(Sampler, UnseededRequestsGetAFreshReportedSeed) {
  SamplingParams p = plain();
  p.seed.reset();
  Sampler a(p, 1000), b(p, 1000);
  EXPECT_NE(a.seed(), b.seed());  // 2^-64 chance of a false failure
  // The reported seed reproduces the unseeded run.
  const std::vector<float> flat(1000, 0.0f);
  p.seed = a.seed();
  Sampler replay(p, 1000);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a.sample(flat), replay.sample(flat));
}

TEST(Sampler, DrawFrequenciesFollowTheProbabilities) {
  Sampler s(plain(42), 3);
  const auto logits = log_probs({0.7, 0.2, 0.1});
  std::map<Token, int> hits;
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++hits[s.sample(logits)];
  EXPECT_NEAR(hits[0] / double(n), 0.7, 0.02);
  EXPECT_NEAR(hits[1] / double(n), 0.2, 0.02);
  EXPECT_NEAR(hits[2] / double(n), 0.1, 0.02);
}

TEST(Sampler, NonFiniteLogitsAreNeverDrawn) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Sampler s(plain(7), 4);
  for (int i = 0; i < 100; ++i) {
    const Token t = s.sample(std::vector<float>{nan, 0.f, -inf, 0.f});
    EXPECT_TRUE(t == 1 || t == 3) << t;
  }
  SamplingParams g;
  g.temperature = 0.0f;
  EXPECT_EQ(Sampler(g, 3).sample(std::vector<float>{nan, -1.f, -inf}), 1);
  try {
    (void)s.sample(std::vector<float>{nan, -inf, nan, -inf});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInternal);
  }
}

void expect_invalid(const SamplingParams& p, int n_vocab = 8) {
  try {
    Sampler s(p, n_vocab);
    FAIL() << "accepted invalid parameters";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument) << e.what();
  }
}

TEST(Sampler, InvalidParametersAreRejected) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto with = [](auto edit) {
    SamplingParams p;
    edit(p);
    return p;
  };
  expect_invalid(with([](SamplingParams& p) { p.temperature = -0.1f; }));
  expect_invalid(with([&](SamplingParams& p) { p.temperature = nan; }));
  expect_invalid(with([](SamplingParams& p) { p.top_p = 0.0f; }));
  expect_invalid(with([](SamplingParams& p) { p.top_p = 1.01f; }));
  expect_invalid(with([&](SamplingParams& p) { p.top_p = nan; }));
  expect_invalid(with([](SamplingParams& p) { p.min_p = -0.01f; }));
  expect_invalid(with([](SamplingParams& p) { p.min_p = 1.5f; }));
  expect_invalid(with([&](SamplingParams& p) { p.min_p = nan; }));
  expect_invalid(with([](SamplingParams& p) { p.repeat_penalty = 0.0f; }));
  expect_invalid(with([](SamplingParams& p) { p.repeat_penalty = -1.0f; }));
  expect_invalid(with([&](SamplingParams& p) { p.repeat_penalty = nan; }));
  expect_invalid(with([](SamplingParams& p) { p.repeat_last_n = -2; }));
  expect_invalid(with([&](SamplingParams& p) { p.frequency_penalty = nan; }));
  expect_invalid(with([&](SamplingParams& p) { p.presence_penalty = inf; }));
  expect_invalid(SamplingParams{}, 0);
  // expect_invalid builds its sampler over 8 tokens.
  expect_invalid(with([](SamplingParams& p) { p.logit_bias = {{8, 1.0f}}; }));
  expect_invalid(with([](SamplingParams& p) { p.logit_bias = {{-1, 1.0f}}; }));
  expect_invalid(with([](SamplingParams& p) { p.logit_bias = {{3, 1.0f}, {2, 1.0f}}; }));
  expect_invalid(with([](SamplingParams& p) { p.logit_bias = {{3, 1.0f}, {3, 2.0f}}; }));
  expect_invalid(with([&](SamplingParams& p) { p.logit_bias = {{1, nan}}; }));
  expect_invalid(with([&](SamplingParams& p) { p.logit_bias = {{1, -inf}}; }));
  // Boundaries that are valid.
  EXPECT_NO_THROW(Sampler(with([](SamplingParams& p) {
                            p.top_p = 1.0f;
                            p.min_p = 1.0f;
                          }),
                          8));
  EXPECT_NO_THROW(Sampler(with([](SamplingParams& p) {
                            p.min_p = 0.0f;
                            p.top_k = -5;
                          }),
                          8));
  EXPECT_NO_THROW(Sampler(with([](SamplingParams& p) { p.temperature = 0.0f; }), 8));
}

TEST(Sampler, LogitBiasIsAddedBeforeEverythingElse) {
  const std::vector<float> logits = {1.f, 3.f, -2.f, 2.5f, 0.f};
  // Greedy: +1 on id 3 makes it the argmax; -100 bans the former argmax.
  SamplingParams g;
  g.temperature = 0.0f;
  g.logit_bias = {{3, 1.0f}};
  EXPECT_EQ(Sampler(g, 5).sample(logits), 3);
  g.logit_bias = {{1, -100.0f}};
  EXPECT_EQ(Sampler(g, 5).sample(logits), 3);
  g.logit_bias = {{1, -100.0f}, {2, 100.0f}};
  EXPECT_EQ(Sampler(g, 5).sample(logits), 2);
  // The ties rule applies to the biased logits: id 0 raised to 3 ties id 1 and wins as the lower id.
  g.logit_bias = {{0, 2.0f}};
  EXPECT_EQ(Sampler(g, 5).sample(logits), 0);

  // Sampling: the distribution is the softmax of the biased logits; -100 leaves a token out of
  // every draw, +100 makes it (in effect) the only one.
  SamplingParams p = plain(7);
  p.logit_bias = {{1, -100.0f}, {4, 2.0f}};
  Sampler s(p, 5);
  for (int i = 0; i < 200; ++i) EXPECT_NE(s.sample(logits), 1);
  (void)s.sample(logits);
  double z = 0;
  const std::vector<float> biased = {1.f, 3.f - 100.f, -2.f, 2.5f, 2.f};
  for (float l : biased) z += std::exp(static_cast<double>(l));
  for (const auto& c : s.last_distribution()) {
    EXPECT_NEAR(c.p, std::exp(static_cast<double>(biased[static_cast<size_t>(c.id)])) / z, 1e-6) << c.id;
  }
  p.logit_bias = {{2, 100.0f}};
  Sampler forced(p, 5);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(forced.sample(logits), 2);
}

TEST(Sampler, BadRowsAndTokensAreRejected) {
  Sampler s(plain(), 4);
  try {
    (void)s.sample(std::vector<float>{1.f, 2.f, 3.f});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  EXPECT_THROW(s.accept(4), Error);
  EXPECT_THROW(s.accept(-1), Error);
  EXPECT_NO_THROW(s.accept(3));
}

}  // namespace
}  // namespace a3s::power

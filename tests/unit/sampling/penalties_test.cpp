// Repetition (llama.cpp) and frequency/presence (OpenAI) penalties: exact values and the window.
#include "sampling/penalties.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "sampling/sampler.h"

namespace a3s::power::sampling {
namespace {

TEST(SamplingPenalties, RepeatPenaltyDividesPositiveAndMultipliesNegative) {
  SamplingParams p;
  p.repeat_penalty = 2.0f;
  Penalties pen(p, 8);
  ASSERT_TRUE(pen.active());
  EXPECT_FLOAT_EQ(pen.apply(3.0f, 1), 1.5f);
  EXPECT_FLOAT_EQ(pen.apply(-3.0f, 1), -6.0f);
  EXPECT_FLOAT_EQ(pen.apply(0.0f, 1), 0.0f);
  EXPECT_FLOAT_EQ(pen.apply(3.0f, 5), 1.5f);  // repetition ignores how often
}

TEST(SamplingPenalties, FrequencyAndPresenceSubtract) {
  SamplingParams p;
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  Penalties pen(p, 8);
  EXPECT_FLOAT_EQ(pen.apply(1.0f, 1), 0.25f);   // 1 - 0.5 - 0.25
  EXPECT_FLOAT_EQ(pen.apply(1.0f, 3), -0.75f);  // 1 - 1.5 - 0.25
  SamplingParams neg;
  neg.frequency_penalty = -1.0f;  // negative values encourage repetition
  EXPECT_FLOAT_EQ(Penalties(neg, 8).apply(1.0f, 2), 3.0f);
}

TEST(SamplingPenalties, AllThreeCombine) {
  SamplingParams p;
  p.repeat_penalty = 2.0f;
  p.frequency_penalty = 0.5f;
  p.presence_penalty = 0.25f;
  Penalties pen(p, 8);
  EXPECT_FLOAT_EQ(pen.apply(2.0f, 2), -0.25f);   // 2/2 - (2*0.5 + 0.25)
  EXPECT_FLOAT_EQ(pen.apply(-2.0f, 1), -4.75f);  // -2*2 - (0.5 + 0.25)
}

TEST(SamplingPenalties, CountsOnlyTheLastNTokens) {
  SamplingParams p;
  p.repeat_penalty = 1.5f;
  p.repeat_last_n = 3;
  Penalties pen(p, 8);
  for (Token t : {1, 1, 2, 3}) pen.accept(t);  // window: 1 2 3
  EXPECT_EQ(pen.count(1), 1);
  EXPECT_EQ(pen.count(2), 1);
  EXPECT_EQ(pen.count(0), 0);
  pen.accept(4);  // window: 2 3 4
  EXPECT_EQ(pen.count(1), 0);
  EXPECT_EQ(pen.count(4), 1);
}

TEST(SamplingPenalties, WindowMinusOneKeepsEverythingAndZeroDisables) {
  SamplingParams all;
  all.presence_penalty = 1.0f;
  all.repeat_last_n = -1;
  Penalties pen(all, 4);
  for (int i = 0; i < 1000; ++i) pen.accept(i % 2);
  EXPECT_EQ(pen.count(0), 500);
  EXPECT_EQ(pen.count(1), 500);

  SamplingParams off = all;
  off.repeat_last_n = 0;
  Penalties none(off, 4);
  EXPECT_FALSE(none.active());
  none.accept(1);
  EXPECT_EQ(none.count(1), 0);

  EXPECT_FALSE(Penalties(SamplingParams{}, 4).active());  // defaults change nothing
}

TEST(SamplingPenalties, AcceptRejectsIdsOutsideTheVocabulary) {
  SamplingParams p;
  Penalties pen(p, 4);
  EXPECT_THROW(pen.accept(4), Error);
  EXPECT_THROW(pen.accept(-1), Error);
  try {
    pen.accept(99);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
}

}  // namespace
}  // namespace a3s::power::sampling

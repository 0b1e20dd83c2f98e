// Token counts as reported under suppress_token_metrics: rounded to the nearest 10, totals consistent.
#include "server/privacy.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace a3s::power::server {
namespace {

TEST(TokenRounding, NearestTenHalvesUp) {
  EXPECT_EQ(round_token_count(0), 0);
  EXPECT_EQ(round_token_count(1), 0);
  EXPECT_EQ(round_token_count(4), 0);
  EXPECT_EQ(round_token_count(5), 10);
  EXPECT_EQ(round_token_count(14), 10);
  EXPECT_EQ(round_token_count(15), 20);
  EXPECT_EQ(round_token_count(20), 20);
  EXPECT_EQ(round_token_count(1234), 1230);
  EXPECT_EQ(round_token_count(-1), -1);  // "no count" passes through
  for (int64_t n = 0; n < 1000; ++n) {
    EXPECT_EQ(round_token_count(n) % 10, 0);
    EXPECT_LE(std::abs(round_token_count(n) - n), 5);
  }
}

TEST(TokenRounding, ShownCountsAreRoundedOnlyWhenSuppressed) {
  const ShownTokenCounts exact = shown_token_counts(13, 27, false);
  EXPECT_EQ(exact.prompt, 13);
  EXPECT_EQ(exact.completion, 27);
  EXPECT_EQ(exact.total(), 40);
  const ShownTokenCounts rounded = shown_token_counts(13, 27, true);
  EXPECT_EQ(rounded.prompt, 10);
  EXPECT_EQ(rounded.completion, 30);
  // The total is the sum of the rounded parts (not the rounded exact total), so it reveals nothing
  // the parts do not.
  EXPECT_EQ(rounded.total(), 40);
  EXPECT_EQ(shown_token_counts(14, 14, true).total(), 20);  // exact total 28 would round to 30
  EXPECT_EQ(shown_token_counts(-1, -1, true).prompt, -1);
}

TEST(ShownDuration, RedactionRoundsUpToAPowerOfTwoMilliseconds) {
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0123, false), 0.0123) << "exact without redaction";
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0, true), 0.001);
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0001, true), 0.001);
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.001, true), 0.001);
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0011, true), 0.002);
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0123, true), 0.016);
  EXPECT_DOUBLE_EQ(shown_duration_seconds(0.0129, true), 0.016) << "nearby durations are indistinguishable";
  EXPECT_DOUBLE_EQ(shown_duration_seconds(1.5, true), 2.048);
}

}  // namespace
}  // namespace a3s::power::server

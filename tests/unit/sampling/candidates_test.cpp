// The truncation stages on small hand-made candidate sets.
#include "sampling/candidates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace a3s::power::sampling {
namespace {

// Candidates whose softmax at temperature 1 is exactly `probs` (logit = ln p).
std::vector<Candidate> from_probs(const std::vector<double>& probs) {
  std::vector<Candidate> c;
  for (size_t i = 0; i < probs.size(); ++i) {
    c.push_back({static_cast<Token>(i), static_cast<float>(std::log(probs[i])), 0.0});
  }
  return c;
}

TEST(SamplingCandidates, SortIsByLogitThenLowerId) {
  std::vector<Candidate> c = {{0, 1.f, 0}, {1, 3.f, 0}, {2, 3.f, 0}, {3, 2.f, 0}, {4, 3.f, 0}};
  sort_candidates(c);
  std::vector<Token> ids;
  for (const auto& x : c) ids.push_back(x.id);
  EXPECT_EQ(ids, (std::vector<Token>{1, 2, 4, 3, 0}));
}

TEST(SamplingCandidates, TopKKeepsTheKBestSorted) {
  std::vector<Candidate> c = {{0, 0.5f, 0}, {1, 4.f, 0}, {2, -1.f, 0}, {3, 2.f, 0}, {4, 3.f, 0}};
  ASSERT_EQ(keep_top_k(c, 3), 3u);
  EXPECT_EQ(c[0].id, 1);
  EXPECT_EQ(c[1].id, 4);
  EXPECT_EQ(c[2].id, 3);
  EXPECT_EQ(keep_top_k(c, 10), 5u);  // k larger than the set keeps all
  EXPECT_EQ(keep_top_k(c, 0), 0u);
}

TEST(SamplingCandidates, TopPKeepsTheSmallestPrefixReachingP) {
  auto c = from_probs({0.5, 0.3, 0.15, 0.05});  // already sorted
  const float max_logit = c[0].logit;
  const double z = mass(c, max_logit);
  EXPECT_NEAR(z, 2.0, 1e-6);  // sum of p / p_max
  EXPECT_EQ(top_p_prefix(c, 0.10, max_logit, z), 1u);
  EXPECT_EQ(top_p_prefix(c, 0.45, max_logit, z), 1u);
  EXPECT_EQ(top_p_prefix(c, 0.55, max_logit, z), 2u);
  EXPECT_EQ(top_p_prefix(c, 0.79, max_logit, z), 2u);
  EXPECT_EQ(top_p_prefix(c, 0.81, max_logit, z), 3u);
  EXPECT_EQ(top_p_prefix(c, 0.96, max_logit, z), 4u);
  EXPECT_EQ(top_p_prefix(c, 1.0, max_logit, z), 4u);
  // With a larger normaliser (tokens outside `c` hold mass) the prefix grows.
  EXPECT_EQ(top_p_prefix(c, 0.45, max_logit, 2.0 * z), 3u);
}

TEST(SamplingCandidates, MinPThresholdIsRelativeToTheBest) {
  auto c = from_probs({0.5, 0.3, 0.15, 0.05});
  EXPECT_EQ(min_p_prefix(c, 0.0), 4u);
  EXPECT_EQ(min_p_prefix(c, 0.09), 4u);  // threshold 0.045
  EXPECT_EQ(min_p_prefix(c, 0.11), 3u);  // threshold 0.055
  EXPECT_EQ(min_p_prefix(c, 0.25), 3u);  // threshold 0.125
  EXPECT_EQ(min_p_prefix(c, 0.59), 2u);  // threshold 0.295
  EXPECT_EQ(min_p_prefix(c, 0.61), 1u);  // threshold 0.305
  EXPECT_EQ(min_p_prefix(c, 1.0), 1u);   // only the best (ties with it would stay)
}

TEST(SamplingCandidates, PartitionMinPMatchesPrefixAfterSorting) {
  auto c = from_probs({0.05, 0.3, 0.5, 0.15});  // unsorted
  const float max_logit = static_cast<float>(std::log(0.5));
  const size_t n = partition_min_p(c, max_logit, 0.25);
  ASSERT_EQ(n, 3u);
  for (size_t i = 0; i < n; ++i) EXPECT_NE(c[i].id, 0) << "the 0.05 token must be dropped";
  EXPECT_EQ(partition_min_p(c, max_logit, 0.0), 4u);
}

TEST(SamplingCandidates, SoftmaxAndTemperature) {
  std::vector<Candidate> c = {{0, 2.f, 0}, {1, 1.f, 0}, {2, 0.f, 0}};
  softmax(c);
  const double z1 = std::exp(2.0) + std::exp(1.0) + 1.0;
  EXPECT_NEAR(c[0].p, std::exp(2.0) / z1, 1e-12);
  EXPECT_NEAR(c[2].p, 1.0 / z1, 1e-12);
  const double p_best_t1 = c[0].p;

  softmax(c, 0.5);  // sharper: logits doubled
  const double z2 = std::exp(4.0) + std::exp(2.0) + 1.0;
  EXPECT_NEAR(c[0].p, std::exp(4.0) / z2, 1e-12);
  EXPECT_GT(c[0].p, p_best_t1);

  softmax(c, 2.0);  // flatter: logits halved
  EXPECT_LT(c[0].p, p_best_t1);
  EXPECT_NEAR(c[0].p + c[1].p + c[2].p, 1.0, 1e-12);

  softmax(c, 1e-30);  // tiny temperature: all mass on the best, no overflow
  EXPECT_DOUBLE_EQ(c[0].p, 1.0);
  EXPECT_DOUBLE_EQ(c[1].p, 0.0);
}

TEST(SamplingCandidates, DrawFollowsCumulativeProbability) {
  std::vector<Candidate> c = {{7, 0, 0.5}, {3, 0, 0.3}, {9, 0, 0.2}};
  EXPECT_EQ(draw(c, 0.0), 7);
  EXPECT_EQ(draw(c, 0.49), 7);
  EXPECT_EQ(draw(c, 0.5), 3);
  EXPECT_EQ(draw(c, 0.79), 3);
  EXPECT_EQ(draw(c, 0.81), 9);
  EXPECT_EQ(draw(c, 0.9999999), 9);
  EXPECT_EQ(draw(c, 1.5), 9);  // beyond the total: the last candidate
}

}  // namespace
}  // namespace a3s::power::sampling

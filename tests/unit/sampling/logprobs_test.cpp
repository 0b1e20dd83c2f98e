// LogSoftmax against a plain double-precision oracle: the normaliser, each token's log probability,
// the top-k order (ties by lower id), the clamps, and rows with NaN / ±inf values.
#include "sampling/logprobs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<double> oracle(const std::vector<float>& row) {
  double z = 0;
  for (float l : row) z += std::exp(static_cast<double>(l));
  std::vector<double> out;
  for (float l : row) out.push_back(static_cast<double>(l) - std::log(z));
  return out;
}

TEST(LogSoftmax, EqualsTheOracleOnRandomRows) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 4.0f);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> row(997);
    for (float& v : row) v = d(rng);
    const LogSoftmax ls(row);
    const std::vector<double> want = oracle(row);
    double mass = 0;
    for (size_t i = 0; i < row.size(); ++i) {
      EXPECT_NEAR(ls.logprob(static_cast<Token>(i)), want[i], 1e-5) << i;
      mass += std::exp(static_cast<double>(ls.logprob(static_cast<Token>(i))));
    }
    EXPECT_NEAR(mass, 1.0, 1e-4);
    // top(k): the k largest, best first, each with its own log probability.
    std::vector<Token> ids(row.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](Token a, Token b) { return row[a] > row[b]; });
    const auto top = ls.top(20);
    ASSERT_EQ(top.size(), 20u);
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].id, ids[i]);
      EXPECT_FLOAT_EQ(top[i].logprob, ls.logprob(ids[i]));
    }
  }
}

TEST(LogSoftmax, LargeLogitsDoNotOverflow) {
  const std::vector<float> row = {1000.0f, 999.0f, -1000.0f};
  const LogSoftmax ls(row);
  EXPECT_NEAR(ls.logprob(0), -std::log1p(std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(ls.logprob(1), -1.0 - std::log1p(std::exp(-1.0)), 1e-6);
  EXPECT_LT(ls.logprob(2), -1999.0f);
}

TEST(LogSoftmax, TiesAreOrderedByLowerIdAndKIsClamped) {
  const std::vector<float> row = {1.0f, 3.0f, 3.0f, 2.0f, 3.0f};
  const LogSoftmax ls(row);
  const auto top = ls.top(4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].id, 1);
  EXPECT_EQ(top[1].id, 2);
  EXPECT_EQ(top[2].id, 4);
  EXPECT_EQ(top[3].id, 3);
  EXPECT_TRUE(ls.top(0).empty());
  EXPECT_TRUE(ls.top(-3).empty());
  EXPECT_EQ(ls.top(100).size(), row.size());  // never more than the row
  std::vector<float> wide(100, 0.0f);
  EXPECT_EQ(LogSoftmax(wide).top(100).size(), static_cast<size_t>(kMaxTopLogprobs));
}

TEST(LogSoftmax, NanAndMinusInfinityHaveNoProbability) {
  const std::vector<float> row = {std::nanf(""), -kInf, 0.0f, 0.0f};
  const LogSoftmax ls(row);
  EXPECT_EQ(ls.logprob(0), -kInf);
  EXPECT_EQ(ls.logprob(1), -kInf);
  EXPECT_NEAR(ls.logprob(2), std::log(0.5), 1e-6);
  const auto top = ls.top(4);
  ASSERT_EQ(top.size(), 2u);  // the impossible tokens are not listed
  EXPECT_EQ(top[0].id, 2);
  EXPECT_EQ(top[1].id, 3);
}

TEST(LogSoftmax, PlusInfinityIsTheLargestFloatAndAnEmptyRowHasNothing) {
  const std::vector<float> row = {kInf, 0.0f};
  const LogSoftmax ls(row);
  EXPECT_FLOAT_EQ(ls.logprob(0), 0.0f);
  EXPECT_LT(ls.logprob(1), -1e38f);
  const std::vector<float> dead = {-kInf, std::nanf("")};
  const LogSoftmax none(dead);
  EXPECT_EQ(none.logprob(0), -kInf);
  EXPECT_TRUE(none.top(5).empty());
}

TEST(LogSoftmax, AnIdOutsideTheRowIsAnError) {
  const std::vector<float> row = {0.0f, 1.0f};
  const LogSoftmax ls(row);
  EXPECT_THROW(ls.logprob(2), Error);
  EXPECT_THROW(ls.logprob(-1), Error);
}

}  // namespace
}  // namespace a3s::power::sampling

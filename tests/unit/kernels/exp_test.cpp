// exp_row: every ISA equals the scalar reference bit for bit; the approximation stays within 2 ULP of
// the correctly rounded exp over the range softmax and SiLU use; limits, infinities and NaN.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/exp_approx.h"

namespace a3s::power::kernels::test {
namespace {

// Distance in units in the last place between two finite floats of the same sign.
int64_t ulps(float a, float b) {
  return std::llabs(static_cast<int64_t>(float_bits(a)) - static_cast<int64_t>(float_bits(b)));
}

std::vector<float> sample_inputs() {
  std::vector<float> x;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-110.0f, 90.0f), narrow(-1.0f, 1.0f);
  for (int i = 0; i < 20000; ++i) x.push_back(wide(rng));
  for (int i = 0; i < 20000; ++i) x.push_back(narrow(rng));
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 88.7f, 88.8f, 89.0f, -87.3f, -100.0f, -103.9f, -104.0f, -130.0f,
                  -140.0f, -150.0f, 200.0f, -200.0f, 1e30f, -1e30f}) {
    x.push_back(v);
  }
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  return x;  // 40021 values: not a multiple of 8, so every ISA's tail path runs too
}

TEST(ExpRow, EveryIsaEqualsTheScalarReference) {
  const auto x = sample_inputs();
  std::vector<float> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref[i] = exp_approx::exp(x[i]);
  IsaGuard guard;
  for (Isa isa : supported_isas()) {
    force_isa(isa);
    std::vector<float> y(x.size());
    exp_row(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(ref[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << isa_name(isa) << " x=" << x[i];
      } else {
        ASSERT_EQ(float_bits(y[i]), float_bits(ref[i])) << isa_name(isa) << " x=" << x[i];
      }
    }
  }
}

TEST(ExpRow, WithinTwoUlpOfTheCorrectlyRoundedExp) {
  const auto x = sample_inputs();
  int64_t worst = 0;
  for (float v : x) {
    const double exact = std::exp(static_cast<double>(v));
    if (!std::isfinite(v) || exact > std::numeric_limits<float>::max() ||
        exact < std::numeric_limits<float>::min()) {
      continue;  // limits and subnormal results: checked separately
    }
    worst = std::max(worst, ulps(exp_approx::exp(v), static_cast<float>(exact)));
  }
  EXPECT_LE(worst, 2);
}

TEST(ExpRow, LimitsInfinitiesAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(exp_approx::exp(0.0f), 1.0f);
  EXPECT_EQ(exp_approx::exp(-inf), 0.0f);  // a masked attention score
  EXPECT_EQ(exp_approx::exp(inf), inf);
  EXPECT_EQ(exp_approx::exp(89.0f), inf);
  EXPECT_EQ(exp_approx::exp(-140.0f), 0.0f);
  EXPECT_TRUE(std::isnan(exp_approx::exp(std::numeric_limits<float>::quiet_NaN())));
  // Subnormal results are rounded once, close to the exact value.
  const float sub = exp_approx::exp(-100.0f);
  EXPECT_GT(sub, 0.0f);
  EXPECT_LT(sub, std::numeric_limits<float>::min());
  EXPECT_NEAR(sub / static_cast<float>(std::exp(-100.0)), 1.0f, 1e-5f);
  // In place is allowed.
  std::vector<float> v = {0.0f, 1.0f, -1.0f};
  exp_row(v.data(), v.data(), 3);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_NEAR(v[1], std::exp(1.0f), 1e-6f);
}

}  // namespace
}  // namespace a3s::power::kernels::test

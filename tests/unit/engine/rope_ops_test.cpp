// RoPE styles and the element-wise ops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/ops.h"
#include "engine/rope.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {
namespace {

HParams hp_for(RopeStyle style) {
  HParams hp;
  hp.n_embd = 8;
  hp.n_head = 1;
  hp.n_head_kv = 1;
  hp.head_dim = 8;
  hp.n_rot = 8;
  hp.rope_style = style;
  hp.rope_base = 10000.0f;
  hp.n_ctx_orig = 2048;
  return hp;
}

TEST(Rope, PositionZeroIsIdentity) {
  for (RopeStyle s : {RopeStyle::Norm, RopeStyle::Neox}) {
    Rope r(hp_for(s));
    std::vector<float> c(8), x = {1, 2, 3, 4, 5, 6, 7, 8}, y = x;
    r.angles(0, c.data());
    r.apply(y.data(), 1, c.data());
    EXPECT_EQ(x, y);
  }
}

TEST(Rope, NormRotatesAdjacentPairsNeoxRotatesHalves) {
  // Only the first pair gets angle = pos (theta_0 = pos · base^0); use a vector that is non-zero
  // only in dimension 0 and check where the rotated mass goes.
  std::vector<float> c(8);
  Rope norm(hp_for(RopeStyle::Norm));
  norm.angles(1, c.data());
  std::vector<float> x = {1, 0, 0, 0, 0, 0, 0, 0};
  norm.apply(x.data(), 1, c.data());
  EXPECT_NEAR(x[0], std::cos(1.0f), 1e-6);
  EXPECT_NEAR(x[1], std::sin(1.0f), 1e-6);
  EXPECT_EQ(x[4], 0.0f);

  Rope neox(hp_for(RopeStyle::Neox));
  neox.angles(1, c.data());
  std::vector<float> y = {1, 0, 0, 0, 0, 0, 0, 0};
  neox.apply(y.data(), 1, c.data());
  EXPECT_NEAR(y[0], std::cos(1.0f), 1e-6);
  EXPECT_NEAR(y[4], std::sin(1.0f), 1e-6);
  EXPECT_EQ(y[1], 0.0f);
}

TEST(Rope, PreservesNormAndLeavesUnrotatedDims) {
  HParams hp = hp_for(RopeStyle::Norm);
  hp.n_rot = 4;  // dims 4..7 pass through
  Rope r(hp);
  std::vector<float> c(4), x = {0.5f, -1, 2, 0.25f, 9, 8, 7, 6};
  r.angles(37, c.data());
  auto y = x;
  r.apply(y.data(), 1, c.data());
  double n0 = 0, n1 = 0;
  for (int i = 0; i < 4; ++i) n0 += x[i] * x[i], n1 += y[i] * y[i];
  EXPECT_NEAR(n0, n1, 1e-4);
  for (int i = 4; i < 8; ++i) EXPECT_EQ(x[i], y[i]);
}

TEST(Rope, LinearScalingDividesPositions) {
  HParams hp = hp_for(RopeStyle::Norm);
  std::vector<float> a(8), b(8);
  Rope plain(hp);
  plain.angles(10, a.data());
  hp.rope_freq_scale = 0.5f;
  Rope scaled(hp);
  scaled.angles(20, b.data());
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
}

TEST(Ops, RmsNormUnitRms) {
  std::vector<float> x = {3, -4, 0, 0}, w = {1, 1, 2, 1}, y(4);
  rms_norm(x.data(), y.data(), 4, 0.0f, w.data());
  // rms = sqrt(25/4) = 2.5
  EXPECT_FLOAT_EQ(y[0], 1.2f);
  EXPECT_FLOAT_EQ(y[1], -1.6f);
  EXPECT_EQ(y[2], 0.0f);
}

TEST(Ops, SoftmaxSumsToOneAndIsStable) {
  std::vector<float> x = {1000, 1001, 999};
  softmax_scaled(x.data(), 3, 1.0f);
  EXPECT_NEAR(x[0] + x[1] + x[2], 1.0, 1e-6);
  EXPECT_GT(x[1], x[0]);
  for (float v : x) EXPECT_TRUE(std::isfinite(v));
}

TEST(Ops, SwiGlu) {
  std::vector<float> g = {0, 1, -1}, u = {5, 2, 2};
  swiglu(g.data(), u.data(), 1, 3);
  EXPECT_EQ(g[0], 0.0f);
  EXPECT_NEAR(g[1], 2.0f / (1 + std::exp(-1.0f)), 1e-6);
  EXPECT_NEAR(g[2], -2.0f / (1 + std::exp(1.0f)), 1e-6);
}

TEST(Ops, SwiGluRowsUseTheVectorExpPerRowAndStdExpForTheTail) {
  // Two rows of 20: columns 0..15 of each row take e^-g from the approximation, 16..19 from std::exp.
  const int64_t rows = 2, cols = 20;
  std::vector<float> g(rows * cols), u(rows * cols, 1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) g[i] = -4.0f + 0.37f * static_cast<float>(i % cols) + 0.011f * i;
  const auto g0 = g;
  swiglu(g.data(), u.data(), rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float x = g0[r * cols + c];
      float e = 0.0f - x;
      if (c < 16) {
        kernels::exp_row(&e, &e, 1);
      } else {
        e = std::exp(-x);
      }
      EXPECT_EQ(g[r * cols + c], x / (1.0f + e)) << r << "," << c;
    }
  }
}

TEST(Ops, SoftmaxMatchesTheChunkedReferenceAndIgnoresPadding) {
  // 37 scores: padded to 64, i.e. four 16-lane chunks, the last two partly or wholly padding.
  std::vector<float> x(37);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 3.0f;
  auto y = x;
  softmax_scaled(y.data(), 37, 0.5f);
  double total = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_GT(y[i], 0.0f);
    total += y[i];
  }
  EXPECT_NEAR(total, 1.0, 1e-6);
  // Against an independent double-precision softmax: the approximation stays within a few ULP.
  double mx = -1e30, sum = 0.0;
  for (float v : x) mx = std::max(mx, 0.5 * v);
  for (float v : x) sum += std::exp(0.5 * v - mx);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], std::exp(0.5 * x[i] - mx) / sum, 2e-7);
  // A masked (-inf) score gets probability 0.
  std::vector<float> m = {1.0f, -std::numeric_limits<float>::infinity(), 2.0f};
  softmax_scaled(m.data(), 3, 1.0f);
  EXPECT_EQ(m[1], 0.0f);
  EXPECT_NEAR(m[0] + m[2], 1.0f, 1e-6f);
}

}  // namespace
}  // namespace a3s::power::engine

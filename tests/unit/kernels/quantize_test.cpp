// Activation quantizers against hand-computed blocks, weight quantizers by round-trip error, and
// bit-exactness of every ISA path with the scalar reference.
#include <algorithm>

#include "a3s/power/error.h"
#include "kernel_test_util.h"
#include "kernels/kernel_table.h"

namespace a3s::power::kernels::test {
namespace {

TEST(QuantizeQ8_0, HandComputedBlock) {
  // amax = 127 → d = 1 exactly, so q = roundf(x) with ties away from zero.
  std::vector<float> x(32, 0.0f);
  x[0] = 127.0f;
  x[1] = 2.5f;     // → 3 (a nearest-even rounding would give 2)
  x[2] = -2.5f;    // → -3
  x[3] = 0.5f;     // → 1
  x[4] = -0.49f;   // → 0
  x[5] = 1.49f;    // → 1
  x[6] = -126.6f;  // → -127
  BlockQ8_0 b{};
  quantize_row(TensorType::Q8_0, x.data(), &b, 32);
  EXPECT_EQ(b.d, 0x3C00);
  const int expect[7] = {127, 3, -3, 1, 0, 1, -127};
  for (int j = 0; j < 7; ++j) EXPECT_EQ(b.qs[j], expect[j]) << j;
  for (int j = 7; j < 32; ++j) EXPECT_EQ(b.qs[j], 0) << j;
}

TEST(QuantizeQ8_0, ScaleIsAmaxOver127) {
  std::vector<float> x(64, 0.0f);
  x[3] = -2.0f;  // amax of block 0 is 2 → d = 2/127, id = 1/d
  x[4] = 1.1f;   // 1.1 · 63.5 = 69.85 → 70
  x[40] = 0.001f;
  BlockQ8_0 b[2]{};
  quantize_row(TensorType::Q8_0, x.data(), b, 64);
  EXPECT_EQ(b[0].d, fp32_to_fp16(2.0f / 127.0f));
  EXPECT_EQ(b[0].qs[3], -127);
  EXPECT_EQ(b[0].qs[4], 70);
  EXPECT_EQ(b[1].d, fp32_to_fp16(0.001f / 127.0f));
  EXPECT_EQ(b[1].qs[8], 127);
  // All-zero block: d = 0 and every quant 0.
  std::vector<float> zeros(32, 0.0f);
  BlockQ8_0 z{};
  z.qs[5] = 9;
  quantize_row(TensorType::Q8_0, zeros.data(), &z, 32);
  EXPECT_EQ(z.d, 0);
  EXPECT_TRUE(std::all_of(std::begin(z.qs), std::end(z.qs), [](int8_t q) { return q == 0; }));
}

TEST(QuantizeQ8_1, HandComputedBlockWithSum) {
  std::vector<float> x(32, 0.0f);
  x[0] = -127.0f;
  x[1] = 10.5f;   // → 11
  x[17] = 20.0f;  // → 20
  BlockQ8_1 b{};
  quantize_row(TensorType::Q8_1, x.data(), &b, 32);
  EXPECT_EQ(b.d, 0x3C00);
  EXPECT_EQ(b.qs[0], -127);
  EXPECT_EQ(b.qs[1], 11);
  EXPECT_EQ(b.qs[17], 20);
  EXPECT_EQ(b.s, fp32_to_fp16(-96.0f));  // s = d · Σq = -127 + 11 + 20
}

TEST(QuantizeQ8CpuBackend, HandComputedBlock) {
  // amax = 127 → id = 127/127 = 1: ties now go to the even integer.
  std::vector<float> x(32, 0.0f);
  x[0] = -127.0f;
  x[1] = 2.5f;   // → 2
  x[2] = -2.5f;  // → -2
  x[3] = 3.5f;   // → 4
  x[4] = 0.5f;   // → 0
  x[5] = 1.49f;  // → 1
  BlockQ8_0 b{};
  quantize_row(TensorType::Q8_0, x.data(), &b, 32, Q8Rounding::CpuBackend);
  EXPECT_EQ(b.d, 0x3C00);
  const int expect[6] = {-127, 2, -2, 4, 0, 1};
  for (int j = 0; j < 6; ++j) EXPECT_EQ(b.qs[j], expect[j]) << j;
  BlockQ8_1 c{};
  quantize_row(TensorType::Q8_1, x.data(), &c, 32, Q8Rounding::CpuBackend);
  EXPECT_EQ(c.d, 0x3C00);
  for (int j = 0; j < 6; ++j) EXPECT_EQ(c.qs[j], expect[j]) << j;
  EXPECT_EQ(c.s, fp32_to_fp16(-127.0f + 2 - 2 + 4 + 0 + 1));
  // Other types ignore the rounding choice.
  std::vector<float> k(256, 0.25f);
  BlockQ8_K k1{}, k2{};
  quantize_row(TensorType::Q8_K, k.data(), &k1, 256);
  quantize_row(TensorType::Q8_K, k.data(), &k2, 256, Q8Rounding::CpuBackend);
  EXPECT_EQ(std::memcmp(&k1, &k2, sizeof k1), 0);
}

TEST(QuantizeQ8CpuBackend, UsesInverseOf127OverAmax) {
  // Multiplier 127/amax (not 1/(amax/127)) and round half to even, on random data.
  std::mt19937 rng(77);
  const auto x = random_floats(rng, 32 * 64, 2.0f);
  std::vector<BlockQ8_0> b(64);
  quantize_row(TensorType::Q8_0, x.data(), b.data(), 32 * 64, Q8Rounding::CpuBackend);
  for (int i = 0; i < 64; ++i) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * i + j]));
    const float id = 127.0f / amax;
    EXPECT_EQ(b[i].d, fp32_to_fp16(amax / 127.0f));
    for (int j = 0; j < 32; ++j) ASSERT_EQ(b[i].qs[j], static_cast<int>(std::nearbyint(x[32 * i + j] * id)));
  }
}

TEST(QuantizeQ8_K, HandComputedBlock) {
  // Largest magnitude is +127: iscale = -127/127 = -1, so q = nearest-even(-x) and d = -1.
  std::vector<float> x(256, 0.0f);
  x[0] = 127.0f;
  x[1] = 2.5f;      // -2.5 → -2 (ties to even)
  x[2] = -3.5f;     // 3.5 → 4
  x[3] = 0.5f;      // -0.5 → -0 = 0
  x[16] = -1.0f;    // → 1
  x[255] = 100.2f;  // → -100
  BlockQ8_K b{};
  quantize_row(TensorType::Q8_K, x.data(), &b, 256);
  EXPECT_EQ(b.d, -1.0f);
  EXPECT_EQ(b.qs[0], -127);
  EXPECT_EQ(b.qs[1], -2);
  EXPECT_EQ(b.qs[2], 4);
  EXPECT_EQ(b.qs[3], 0);
  EXPECT_EQ(b.qs[16], 1);
  EXPECT_EQ(b.qs[255], -100);
  EXPECT_EQ(b.bsums[0], -127 - 2 + 4);
  EXPECT_EQ(b.bsums[1], 1);
  EXPECT_EQ(b.bsums[15], -100);
  for (int g = 2; g < 15; ++g) EXPECT_EQ(b.bsums[g], 0) << g;
}

TEST(QuantizeQ8_K, NegativeMaxAndZeroBlock) {
  std::vector<float> x(512, 0.0f);
  x[7] = -4.0f;  // iscale = 31.75, d = 1/31.75
  x[8] = 1.0f;   // 31.75 → 32
  x[9] = 0.3f;   // 9.525 → 10
  BlockQ8_K b[2];
  std::memset(b, 0x5A, sizeof b);
  quantize_row(TensorType::Q8_K, x.data(), b, 512);
  EXPECT_EQ(b[0].d, 1.0f / 31.75f);
  EXPECT_EQ(b[0].qs[7], -127);
  EXPECT_EQ(b[0].qs[8], 32);
  EXPECT_EQ(b[0].qs[9], 10);
  EXPECT_EQ(b[0].bsums[0], -127 + 32 + 10);
  // The second block is all zeros: d = 0, quants and sums zeroed.
  EXPECT_EQ(b[1].d, 0.0f);
  EXPECT_TRUE(std::all_of(std::begin(b[1].qs), std::end(b[1].qs), [](int8_t q) { return q == 0; }));
  EXPECT_TRUE(std::all_of(std::begin(b[1].bsums), std::end(b[1].bsums), [](int16_t s) { return s == 0; }));
}

TEST(Quantize, F32F16BF16Rows) {
  const float x[4] = {1.0f, -0.5f, 65504.0f, 1e-8f};
  float f[4];
  uint16_t h[4], b[4];
  quantize_row(TensorType::F32, x, f, 4);
  quantize_row(TensorType::F16, x, h, 4);
  quantize_row(TensorType::BF16, x, b, 4);
  EXPECT_EQ(std::vector<float>(f, f + 4), std::vector<float>(x, x + 4));
  EXPECT_EQ(std::vector<uint16_t>(h, h + 4), std::vector<uint16_t>({0x3C00, 0xB800, 0x7BFF, 0x0000}));
  EXPECT_EQ(b[0], 0x3F80);
  EXPECT_EQ(b[1], 0xBF00);
}

TEST(Quantize, RejectsBadArguments) {
  std::vector<float> x(64, 1.0f);
  std::vector<uint8_t> out(1024);
  try {
    quantize_row(TensorType::Q8_K, x.data(), out.data(), 64);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  EXPECT_THROW(quantize_row(TensorType::Q4_0, x.data(), out.data(), 31), Error);
  EXPECT_THROW(quantize_row(static_cast<TensorType>(21), x.data(), out.data(), 32), Error);
  EXPECT_THROW(quantize_rows(TensorType::Q8_0, x.data(), out.data(), -1, 32, nullptr), Error);
}

// ---- Round trips -------------------------------------------------------------------------------

struct RoundTripCase {
  TensorType type;
  double max_rel_rms;  // bound on ‖dequant(quant(x)) - x‖ / ‖x‖ for Gaussian data
};

class RoundTrip : public testing::TestWithParam<RoundTripCase> {};

TEST_P(RoundTrip, ErrorIsBounded) {
  const auto [type, bound] = GetParam();
  std::mt19937 rng(1234);
  const int64_t n = 256 * 16;
  const auto x = random_floats(rng, n, 0.02f);
  Buffer q(row_bytes(type, n));
  quantize_row(type, x.data(), q.data(), n);
  const auto y = dequantized(type, q.data(), n);
  double err = 0, norm = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(std::isfinite(y[i])) << i;
    err += (y[i] - x[i]) * static_cast<double>(y[i] - x[i]);
    norm += x[i] * static_cast<double>(x[i]);
  }
  const double rel = std::sqrt(err / norm);
  EXPECT_LT(rel, bound) << type_name(type);
  RecordProperty("rel_rms_error", std::to_string(rel));
}

TEST_P(RoundTrip, ZeroAndConstantRows) {
  const TensorType type = GetParam().type;
  const int64_t n = 512;
  Buffer q(row_bytes(type, n));
  std::vector<float> zeros(n, 0.0f);
  quantize_row(type, zeros.data(), q.data(), n);
  for (float v : dequantized(type, q.data(), n)) ASSERT_EQ(v, 0.0f) << type_name(type);
  std::vector<float> constant(n, 0.75f);
  quantize_row(type, constant.data(), q.data(), n);
  for (float v : dequantized(type, q.data(), n)) ASSERT_NEAR(v, 0.75f, 0.75f * 0.02) << type_name(type);
}

TEST_P(RoundTrip, QuantizingAgainIsStable) {
  // Dequantized data lies on the grid: quantizing it again must not make the error grow much.
  const TensorType type = GetParam().type;
  std::mt19937 rng(99);
  const int64_t n = 1024;
  const auto x = random_floats(rng, n);
  Buffer q(row_bytes(type, n)), q2(row_bytes(type, n));
  quantize_row(type, x.data(), q.data(), n);
  const auto y = dequantized(type, q.data(), n);
  quantize_row(type, y.data(), q2.data(), n);
  const auto z = dequantized(type, q2.data(), n);
  double e1 = 0, e2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    e1 += (y[i] - x[i]) * static_cast<double>(y[i] - x[i]);
    e2 += (z[i] - x[i]) * static_cast<double>(z[i] - x[i]);
  }
  EXPECT_LT(std::sqrt(e2), 1.5 * std::sqrt(e1) + 1e-6) << type_name(type);
}

INSTANTIATE_TEST_SUITE_P(
    AllWeightTypes, RoundTrip,
    testing::Values(RoundTripCase{TensorType::F32, 1e-9}, RoundTripCase{TensorType::F16, 1e-3},
                    RoundTripCase{TensorType::BF16, 5e-3}, RoundTripCase{TensorType::Q8_0, 0.01},
                    RoundTripCase{TensorType::Q6_K, 0.03}, RoundTripCase{TensorType::Q5_0, 0.05},
                    RoundTripCase{TensorType::Q5_1, 0.05}, RoundTripCase{TensorType::Q5_K, 0.05},
                    RoundTripCase{TensorType::Q4_0, 0.11}, RoundTripCase{TensorType::Q4_1, 0.10},
                    RoundTripCase{TensorType::Q4_K, 0.10}, RoundTripCase{TensorType::Q3_K, 0.2},
                    RoundTripCase{TensorType::Q2_K, 0.4}, RoundTripCase{TensorType::IQ4_NL, 0.10},
                    RoundTripCase{TensorType::IQ4_XS, 0.10}),
    [](const testing::TestParamInfo<RoundTripCase>& i) { return type_name(i.param.type); });

// ---- ISA paths ---------------------------------------------------------------------------------

class QuantizeIsa : public testing::TestWithParam<Isa> {};

TEST_P(QuantizeIsa, ActivationQuantizersAreBitExactWithScalar) {
  IsaGuard guard(GetParam());
  std::mt19937 rng(5);
  for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q8_1,
                       TensorType::Q8_K}) {
    for (int64_t n : {256, 512, 4096}) {
      auto x = random_floats(rng, n, 3.0f);
      // Exact ties and a zero block stress the rounding rules.
      for (int64_t i = 0; i < 64; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 9) - 4.5f;
      for (int64_t i = 256; i < 256 + 32 && i < n; ++i) x[static_cast<size_t>(i)] = 0.0f;
      const size_t bytes = row_bytes(t, n);
      Buffer got(bytes), want(bytes);
      quantize_row(t, x.data(), got.data(), n);
      scalar_table().quantize[slot(t)](x.data(), want.data(), n);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), bytes), 0) << type_name(t) << " n=" << n;
      if (scalar_table().quantize_backend[slot(t)] != nullptr) {
        quantize_row(t, x.data(), got.data(), n, Q8Rounding::CpuBackend);
        scalar_table().quantize_backend[slot(t)](x.data(), want.data(), n);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), bytes), 0) << "backend rounding " << type_name(t);
      }
    }
  }
}

TEST_P(QuantizeIsa, QuantizeRowsMatchesRowByRow) {
  IsaGuard guard(GetParam());
  std::mt19937 rng(8);
  const int64_t rows = 13, cols = 512;
  const auto x = random_floats(rng, rows * cols);
  for (TensorType t : {TensorType::Q8_0, TensorType::Q8_K, TensorType::F16, TensorType::Q4_K}) {
    const size_t rb = row_bytes(t, cols);
    Buffer a(rb * rows), b(rb * rows);
    ThreadPool pool(3);
    quantize_rows(t, x.data(), a.data(), rows, cols, &pool);
    for (int64_t r = 0; r < rows; ++r) quantize_row(t, x.data() + r * cols, b.data() + r * rb, cols);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), rb * rows), 0) << type_name(t);
    Buffer c(rb * rows);
    quantize_rows(t, x.data(), c.data(), rows, cols, nullptr);
    EXPECT_EQ(std::memcmp(c.data(), b.data(), rb * rows), 0) << type_name(t);
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, QuantizeIsa, testing::ValuesIn(supported_isas()), isa_param_name);

}  // namespace
}  // namespace a3s::power::kernels::test

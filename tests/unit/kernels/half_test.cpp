// fp16 / bf16 conversions: edge cases, exhaustive round trips, hardware cross-check, row versions.
#include <bit>
#include <cmath>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

float bits_to_float(uint32_t b) {
  return std::bit_cast<float>(b);
}

TEST(Fp16, KnownValues) {
  EXPECT_EQ(fp32_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(fp32_to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(fp32_to_fp16(-2.0f), 0xC000);
  EXPECT_EQ(fp32_to_fp16(0.5f), 0x3800);
  EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7BFF);  // largest finite half
  EXPECT_EQ(fp16_to_fp32(0x3C00), 1.0f);
  EXPECT_EQ(fp16_to_fp32(0xC000), -2.0f);
  EXPECT_EQ(fp16_to_fp32(0x7BFF), 65504.0f);
  EXPECT_EQ(fp16_to_fp32(0x3555), 0.333251953125f);
}

TEST(Fp16, RoundToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
  EXPECT_EQ(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3·2^-11 is halfway between 0x3C01 and 0x3C02: ties to even (0x3C02).
  EXPECT_EQ(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the halfway point rounds up.
  EXPECT_EQ(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  // Just below rounds down.
  EXPECT_EQ(fp32_to_fp16(std::nextafter(1.0f + std::ldexp(1.0f, -11), 0.0f)), 0x3C00);
  // Mantissa carry into the exponent: 2 - 2^-12 rounds up to 2.0.
  EXPECT_EQ(fp32_to_fp16(2.0f - std::ldexp(1.0f, -12)), 0x4000);
}

TEST(Fp16, OverflowAndInfinity) {
  EXPECT_EQ(fp32_to_fp16(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7C00);  // halfway to 65536 ties to even → inf
  EXPECT_EQ(fp32_to_fp16(1e10f), 0x7C00);
  EXPECT_EQ(fp32_to_fp16(-1e10f), 0xFC00);
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(fp32_to_fp16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(std::isinf(fp16_to_fp32(0x7C00)));
  EXPECT_LT(fp16_to_fp32(0xFC00), 0.0f);
}

TEST(Fp16, NaN) {
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::quiet_NaN()), 0x7E00);
  EXPECT_EQ(fp32_to_fp16(bits_to_float(0xFFC00000u)), 0xFE00);  // negative NaN keeps its sign
  EXPECT_EQ(fp32_to_fp16(bits_to_float(0x7F800001u)), 0x7E00);  // signalling NaN → quiet NaN
  EXPECT_TRUE(std::isnan(fp16_to_fp32(0x7E00)));
  EXPECT_TRUE(std::isnan(fp16_to_fp32(0x7C01)));
  // fp16 → fp32 keeps the payload and makes the NaN quiet.
  EXPECT_EQ(std::bit_cast<uint32_t>(fp16_to_fp32(0x7E01)), 0x7FC02000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(fp16_to_fp32(0x7C01)), 0x7FC02000u);  // signalling → quiet
  EXPECT_EQ(std::bit_cast<uint32_t>(fp16_to_fp32(0xFD00)), 0xFFE00000u);
}

TEST(Fp16, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest half subnormal
  EXPECT_EQ(fp32_to_fp16(tiny), 0x0001);
  EXPECT_EQ(fp16_to_fp32(0x0001), tiny);
  EXPECT_EQ(fp16_to_fp32(0x03FF), 1023 * tiny);  // largest subnormal
  EXPECT_EQ(fp16_to_fp32(0x8001), -tiny);
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // half of tiny ties to even (0)
  EXPECT_EQ(fp32_to_fp16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(fp32_to_fp16(3 * std::ldexp(1.0f, -25)), 0x0002);  // 1.5·tiny ties to even (2)
  EXPECT_EQ(fp32_to_fp16(5 * std::ldexp(1.0f, -25)), 0x0002);  // 2.5·tiny ties to even (2)
  EXPECT_EQ(fp32_to_fp16(-3 * std::ldexp(1.0f, -25)), 0x8002);
  EXPECT_EQ(fp32_to_fp16(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(fp32_to_fp16(-std::ldexp(1.0f, -30)), 0x8000);
  EXPECT_EQ(fp32_to_fp16(1023.5f * tiny), 0x0400);  // rounds up into the normal range
  EXPECT_EQ(fp32_to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Fp16, ExhaustiveRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16_to_fp32(static_cast<uint16_t>(h));
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) {
      ASSERT_TRUE(std::isnan(f)) << h;
      continue;
    }
    ASSERT_EQ(fp32_to_fp16(f), h) << "half bits " << h;
  }
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t hardware_fp32_to_fp16(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float hardware_fp16_to_fp32(uint16_t h) {
  return _cvtsh_ss(h);
}

TEST(Fp16, MatchesF16cHardware) {
  if (!cpu_has_f16c()) GTEST_SKIP() << "CPU without F16C";
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 2000000; ++i) {
    // Bias the exponent towards the interesting range of halves half of the time.
    uint32_t b = bits(rng);
    if (i & 1) b = (b & 0x807FFFFFu) | ((100u + (b >> 23) % 60u) << 23);
    const float f = bits_to_float(b);
    if (std::isnan(f)) continue;  // hardware keeps NaN payloads; ggml returns 0x7E00 (tested above)
    ASSERT_EQ(fp32_to_fp16(f), hardware_fp32_to_fp16(f)) << "fp32 bits " << b;
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float a = fp16_to_fp32(static_cast<uint16_t>(h));
    const float b = hardware_fp16_to_fp32(static_cast<uint16_t>(h));
    ASSERT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b)) << h;
  }
}
#endif

TEST(Bf16, KnownValuesAndRounding) {
  EXPECT_EQ(fp32_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(fp32_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x3F808000u)), 0x3F80);         // tie, even → down
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x3F818000u)), 0x3F82);         // tie, odd → up
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x3F808001u)), 0x3F81);         // above tie → up
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x3F807FFFu)), 0x3F80);         // below tie → down
  EXPECT_EQ(fp32_to_bf16(std::numeric_limits<float>::max()), 0x7F80);  // overflows to inf
  EXPECT_EQ(fp32_to_bf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(fp32_to_bf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(fp32_to_bf16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bf16_to_fp32(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_fp32(0x0001), bits_to_float(0x00010000u));  // bf16 subnormal is exact
}

TEST(Bf16, NaNStaysNaN) {
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x7FC00000u)), 0x7FC0);
  // A signalling NaN whose payload sits only in the low bits would truncate to inf: the quiet bit
  // is forced so it stays NaN.
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0x7F800001u)), 0x7FC0);
  EXPECT_EQ(fp32_to_bf16(bits_to_float(0xFF800001u)), 0xFFC0);
  EXPECT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(bits_to_float(0x7FFFFFFFu)))));
}

TEST(Bf16, ExhaustiveRoundTrip) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = bf16_to_fp32(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(f))));
      continue;
    }
    ASSERT_EQ(fp32_to_bf16(f), b);
  }
}

class HalfRows : public testing::TestWithParam<Isa> {};

TEST_P(HalfRows, RowConversionsMatchScalar) {
  IsaGuard guard(GetParam());
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  for (int64_t n : {0, 1, 7, 8, 9, 31, 64, 1001}) {
    std::vector<float> f(static_cast<size_t>(n));
    std::vector<uint16_t> h(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      uint32_t b = bits(rng);
      if (i % 3 != 0) b = (b & 0x807FFFFFu) | ((100u + (b >> 23) % 60u) << 23);
      if (i % 17 == 5) b = 0x7FC00000u | (b & 0x80000000u);  // NaNs too
      f[static_cast<size_t>(i)] = bits_to_float(b);
      h[static_cast<size_t>(i)] = static_cast<uint16_t>(b);
    }
    std::vector<uint16_t> h16(static_cast<size_t>(n)), hb16(static_cast<size_t>(n));
    std::vector<float> f16(static_cast<size_t>(n)), fb16(static_cast<size_t>(n));
    fp32_to_fp16_row(f.data(), h16.data(), n);
    fp32_to_bf16_row(f.data(), hb16.data(), n);
    fp16_to_fp32_row(h.data(), f16.data(), n);
    bf16_to_fp32_row(h.data(), fb16.data(), n);
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      ASSERT_EQ(h16[i], fp32_to_fp16(f[i])) << "n=" << n << " i=" << i;
      ASSERT_EQ(hb16[i], fp32_to_bf16(f[i])) << "n=" << n << " i=" << i;
      ASSERT_EQ(std::bit_cast<uint32_t>(f16[i]), std::bit_cast<uint32_t>(fp16_to_fp32(h[i])));
      ASSERT_EQ(std::bit_cast<uint32_t>(fb16[i]), std::bit_cast<uint32_t>(bf16_to_fp32(h[i])));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, HalfRows, testing::ValuesIn(supported_isas()), isa_param_name);

}  // namespace
}  // namespace a3s::power::kernels::test

// Dequantization of hand-built blocks to exactly known values, one test per format, plus errors.
#include "a3s/power/error.h"
#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

constexpr uint16_t kHalfOne = 0x3C00;       // 1.0
constexpr uint16_t kHalfHalf = 0x3800;      // 0.5
constexpr uint16_t kHalfQuarter = 0x3400;   // 0.25
constexpr uint16_t kHalfTwo = 0x4000;       // 2.0
constexpr uint16_t kHalfMinusOne = 0xBC00;  // -1.0

template <typename Block>
std::vector<float> deq(TensorType t, const Block& b, int64_t n) {
  return dequantized(t, &b, n);
}

TEST(Dequantize, F32F16BF16) {
  const float f[3] = {1.5f, -2.25f, 0.0f};
  EXPECT_EQ(dequantized(TensorType::F32, f, 3), std::vector<float>({1.5f, -2.25f, 0.0f}));
  const uint16_t h[3] = {0x3E00, 0xC080, 0x8000};  // 1.5, -2.25, -0
  EXPECT_EQ(dequantized(TensorType::F16, h, 3), std::vector<float>({1.5f, -2.25f, -0.0f}));
  const uint16_t b[3] = {0x3FC0, 0xC010, 0x0000};  // 1.5, -2.25, 0
  EXPECT_EQ(dequantized(TensorType::BF16, b, 3), std::vector<float>({1.5f, -2.25f, 0.0f}));
}

TEST(Dequantize, Q4_0) {
  BlockQ4_0 b{};
  b.d = kHalfHalf;
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  const auto y = deq(TensorType::Q4_0, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 8)) << j;       // low nibble: element j
    EXPECT_EQ(y[j + 16], 0.5f * static_cast<float>(7 - j)) << j;  // high nibble: element j+16
  }
}

TEST(Dequantize, Q4_1) {
  BlockQ4_1 b{};
  b.d = kHalfQuarter;
  b.m = kHalfMinusOne;
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  const auto y = deq(TensorType::Q4_1, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.25f * static_cast<float>(j) - 1.0f) << j;
    EXPECT_EQ(y[j + 16], 0.25f * static_cast<float>(15 - j) - 1.0f) << j;
  }
}

TEST(Dequantize, Q5_0) {
  BlockQ5_0 b{};
  b.d = kHalfOne;
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  // Fifth bits: elements 0..7 and 24..31 set (qh bits 0-7 and 24-31).
  b.qh[0] = 0xFF;
  b.qh[1] = 0x00;
  b.qh[2] = 0x00;
  b.qh[3] = 0xFF;
  const auto y = deq(TensorType::Q5_0, b, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], static_cast<float>(j + (j < 8 ? 16 : 0) - 16)) << j;
    EXPECT_EQ(y[j + 16], static_cast<float>(15 - j + (j + 16 >= 24 ? 16 : 0) - 16)) << j;
  }
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[8], -8.0f);
  EXPECT_EQ(y[16], -1.0f);
  EXPECT_EQ(y[31], 0.0f);
}

TEST(Dequantize, Q5_1) {
  BlockQ5_1 b{};
  b.d = kHalfHalf;
  b.m = kHalfTwo;
  for (int j = 0; j < 16; ++j) b.qs[j] = 0xFF;  // every nibble 15
  b.qh[0] = 0x01;                               // element 0 → 31
  b.qh[2] = 0x80;                               // element 23 → 31
  const auto y = deq(TensorType::Q5_1, b, 32);
  for (int j = 0; j < 32; ++j) {
    const int q = (j == 0 || j == 23) ? 31 : 15;
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(q) + 2.0f) << j;
  }
}

TEST(Dequantize, Q8_0AndQ8_1) {
  BlockQ8_0 b{};
  b.d = kHalfTwo;
  for (int j = 0; j < 32; ++j) b.qs[j] = static_cast<int8_t>(j * 8 - 128);
  auto y = deq(TensorType::Q8_0, b, 32);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 2.0f * static_cast<float>(j * 8 - 128)) << j;

  BlockQ8_1 c{};
  c.d = kHalfQuarter;
  c.s = 0x7BFF;  // the sum is not used by dequantization
  for (int j = 0; j < 32; ++j) c.qs[j] = static_cast<int8_t>(127 - j);
  y = deq(TensorType::Q8_1, c, 32);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], 0.25f * static_cast<float>(127 - j)) << j;
}

TEST(Dequantize, Q2_K) {
  BlockQ2_K b{};
  b.d = kHalfOne;
  b.dmin = kHalfHalf;
  for (int s = 0; s < 16; ++s) b.scales[s] = static_cast<uint8_t>(s | ((s % 4) << 4));
  for (auto& q : b.qs) q = 0xE4;  // 2-bit planes 0,1,2,3 hold quants 0,1,2,3
  const auto y = deq(TensorType::Q2_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 16;              // sub-block of 16
    const int plane = (e % 128) / 32;  // which 2-bit plane of the 32 bytes of this half
    EXPECT_EQ(y[e], static_cast<float>(s * plane) - 0.5f * static_cast<float>(s % 4)) << e;
  }
}

TEST(Dequantize, Q3_K) {
  BlockQ3_K b{};
  b.d = kHalfOne;
  // 6-bit scale codes 32 + s (→ scale s): low nibbles s and s + 8, high 2 bits all 0b10.
  for (int k = 0; k < 8; ++k) b.scales[k] = static_cast<uint8_t>(k | ((k + 8) << 4));
  for (int k = 8; k < 12; ++k) b.scales[k] = 0xAA;
  for (auto& q : b.qs) q = 0xE4;                   // low bits = plane index 0..3
  for (int l = 0; l < 32; ++l) b.hmask[l] = 0x0F;  // high bit set for the first 128 elements only
  const auto y = deq(TensorType::Q3_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 16;
    const int plane = (e % 128) / 32;
    const int q = plane - (e >= 128 ? 4 : 0);
    EXPECT_EQ(y[e], static_cast<float>(s * q)) << e;
  }
}

// Scales {1,2,3,4,21,37,53,63} and mins {0,1,2,3,17,33,49,62} packed by hand into 12 bytes.
void set_k4_scales(uint8_t* s) {
  const uint8_t packed[12] = {65, 130, 195, 196, 64, 129, 194, 195, 21, 21, 21, 239};
  std::memcpy(s, packed, 12);
}
constexpr int kK4Scale[8] = {1, 2, 3, 4, 21, 37, 53, 63};
constexpr int kK4Min[8] = {0, 1, 2, 3, 17, 33, 49, 62};

TEST(Dequantize, Q4_K) {
  BlockQ4_K b{};
  b.d = kHalfOne;
  b.dmin = kHalfQuarter;
  set_k4_scales(b.scales);
  for (int i = 0; i < 128; ++i) b.qs[i] = static_cast<uint8_t>((i % 16) | ((15 - i % 16) << 4));
  const auto y = deq(TensorType::Q4_K, b, 256);
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) {
      const int lo = 2 * c, hi = 2 * c + 1;
      EXPECT_EQ(y[64 * c + l], static_cast<float>(kK4Scale[lo] * (l % 16)) - 0.25f * kK4Min[lo])
          << c << "," << l;
      EXPECT_EQ(y[64 * c + 32 + l], static_cast<float>(kK4Scale[hi] * (15 - l % 16)) - 0.25f * kK4Min[hi])
          << c << "," << l;
    }
  }
}

TEST(Dequantize, Q5_K) {
  BlockQ5_K b{};
  b.d = kHalfOne;
  b.dmin = kHalfQuarter;
  set_k4_scales(b.scales);
  for (int i = 0; i < 128; ++i) b.qs[i] = static_cast<uint8_t>((i % 16) | ((15 - i % 16) << 4));
  // Even l: the low-nibble element of every chunk gets +16; odd l: the high-nibble element.
  for (int l = 0; l < 32; ++l) b.qh[l] = (l % 2 == 0) ? 0x55 : 0xAA;
  const auto y = deq(TensorType::Q5_K, b, 256);
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) {
      const int lo = 2 * c, hi = 2 * c + 1;
      const int q_lo = l % 16 + (l % 2 == 0 ? 16 : 0);
      const int q_hi = 15 - l % 16 + (l % 2 == 1 ? 16 : 0);
      EXPECT_EQ(y[64 * c + l], static_cast<float>(kK4Scale[lo] * q_lo) - 0.25f * kK4Min[lo]) << c << "," << l;
      EXPECT_EQ(y[64 * c + 32 + l], static_cast<float>(kK4Scale[hi] * q_hi) - 0.25f * kK4Min[hi])
          << c << "," << l;
    }
  }
}

TEST(Dequantize, Q6_K) {
  BlockQ6_K b{};
  b.d = kHalfHalf;
  for (int s = 0; s < 16; ++s) b.scales[s] = static_cast<int8_t>(s - 8);
  for (auto& q : b.ql) q = 0x21;  // low nibble 1, high nibble 2
  for (auto& q : b.qh) q = 0xE4;  // 2-bit fields 0,1,2,3
  // Element offsets 0/32/64/96 of each 128-half: 6-bit values 1, 17, 34, 50 → minus 32.
  const int v[4] = {1 - 32, 17 - 32, 34 - 32, 50 - 32};
  const auto y = deq(TensorType::Q6_K, b, 256);
  for (int e = 0; e < 256; ++e) {
    const int s = e / 16;
    EXPECT_EQ(y[e], 0.5f * static_cast<float>((s - 8) * v[(e % 128) / 32])) << e;
  }
}

TEST(Dequantize, Q8_K) {
  BlockQ8_K b{};
  b.d = -0.125f;
  for (int j = 0; j < 256; ++j) b.qs[j] = static_cast<int8_t>(j - 128);
  const auto y = deq(TensorType::Q8_K, b, 256);
  for (int j = 0; j < 256; ++j) EXPECT_EQ(y[j], -0.125f * static_cast<float>(j - 128)) << j;
}

TEST(Dequantize, MultipleBlocksAdvance) {
  BlockQ8_0 b[2]{};
  b[0].d = kHalfOne;
  b[1].d = kHalfTwo;
  for (int j = 0; j < 32; ++j) b[0].qs[j] = b[1].qs[j] = static_cast<int8_t>(j);
  const auto y = dequantized(TensorType::Q8_0, b, 64);
  EXPECT_EQ(y[31], 31.0f);
  EXPECT_EQ(y[32], 0.0f);
  EXPECT_EQ(y[63], 62.0f);
}

TEST(Dequantize, RejectsBadArguments) {
  BlockQ4_0 b{};
  float out[64];
  try {
    dequantize_row(TensorType::Q4_0, &b, out, 33);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("q4_0"), std::string::npos);
  }
  EXPECT_THROW(dequantize_row(TensorType::Q4_K, &b, out, 32), Error);
  EXPECT_THROW(dequantize_row(TensorType::F32, &b, out, -1), Error);
  try {
    dequantize_row(static_cast<TensorType>(4), &b, out, 32);  // removed Q4_2
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kUnsupportedType);
  }
  EXPECT_NO_THROW(dequantize_row(TensorType::Q4_0, nullptr, nullptr, 0));
}

}  // namespace
}  // namespace a3s::power::kernels::test

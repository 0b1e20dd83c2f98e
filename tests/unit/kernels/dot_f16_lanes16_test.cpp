// dot_f16_lanes16: every ISA equals the scalar reference bit for bit for every length and padding;
// the value is the dot product; padding counts as zeros and is never read.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

std::vector<uint16_t> random_f16(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<uint16_t> v(n);
  for (auto& h : v) h = fp32_to_fp16(d(rng));
  return v;
}

TEST(DotF16Lanes16, EveryIsaEqualsTheScalarReference) {
  std::mt19937 rng(11);
  const auto x = random_f16(400, rng), y = random_f16(400, rng);
  for (int64_t n : {0, 1, 5, 31, 32, 33, 63, 64, 65, 100, 128, 200, 256, 300}) {
    for (int64_t pad : {int64_t{0}, (n + 31) / 32 * 32 - n, int64_t{70}}) {
      IsaGuard guard(Isa::Scalar);
      const float ref = dot_f16_lanes16(x.data(), y.data(), n, n + pad);
      for (Isa isa : supported_isas()) {
        force_isa(isa);
        EXPECT_EQ(float_bits(dot_f16_lanes16(x.data(), y.data(), n, n + pad)), float_bits(ref))
            << isa_name(isa) << " n=" << n << " pad=" << pad;
      }
    }
  }
}

TEST(DotF16Lanes16, IsTheDotProductAndPaddingIsNeverRead) {
  std::mt19937 rng(12);
  const int64_t n = 100;
  auto x = random_f16(n, rng), y = random_f16(n, rng);
  double exact = 0.0;
  for (int64_t i = 0; i < n; ++i) exact += double(fp16_to_fp32(x[i])) * fp16_to_fp32(y[i]);
  // Rows followed by NaNs: the padded positions must count as zeros, not be loaded.
  x.resize(128, 0x7E00);
  y.resize(128, 0x7E00);
  IsaGuard guard;
  for (Isa isa : supported_isas()) {
    force_isa(isa);
    EXPECT_NEAR(dot_f16_lanes16(x.data(), y.data(), n, 128), exact, 1e-4) << isa_name(isa);
    EXPECT_EQ(dot_f16_lanes16(x.data(), y.data(), 0, 32), 0.0f);
  }
}

TEST(DotF16Lanes16, RowsEqualOneCallPerRowOnEveryIsa) {
  std::mt19937 rng(13);
  const int64_t stride = 333;  // elements between rows (rows overlap when n > stride)
  const auto x = random_f16(static_cast<size_t>(stride) * 11 + 400, rng), y = random_f16(400, rng);
  for (int64_t n : {0, 1, 31, 64, 70, 100, 128, 256, 300}) {
    for (int64_t pad : {int64_t{0}, (n + 31) / 32 * 32 - n, int64_t{70}}) {
      for (int64_t rows : {1, 3, 4, 5, 8, 11}) {
        IsaGuard guard(Isa::Scalar);
        std::vector<float> ref(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r) ref[r] = dot_f16_lanes16(x.data() + r * stride, y.data(), n, n + pad);
        for (Isa isa : supported_isas()) {
          force_isa(isa);
          std::vector<float> out(static_cast<size_t>(rows) + 1, -7.0f);
          dot_f16_lanes16_rows(x.data(), stride, rows, y.data(), n, n + pad, out.data());
          for (int64_t r = 0; r < rows; ++r)
            EXPECT_EQ(float_bits(out[r]), float_bits(ref[r]))
                << isa_name(isa) << " n=" << n << " pad=" << pad << " rows=" << rows << " row " << r;
          EXPECT_EQ(out[rows], -7.0f) << "wrote past the last row";
        }
      }
    }
  }
}

TEST(DotF16Lanes16, RowsNeverReadThePadding) {
  std::mt19937 rng(14);
  const int64_t n = 100, stride = 128, rows = 6;
  std::vector<uint16_t> x(static_cast<size_t>(stride * rows), 0x7E00);  // NaN everywhere ...
  auto y = random_f16(n, rng);
  y.resize(128, 0x7E00);
  for (int64_t r = 0; r < rows; ++r) {  // ... but the n elements of each row
    const auto row = random_f16(n, rng);
    std::copy(row.begin(), row.end(), x.begin() + r * stride);
  }
  IsaGuard guard;
  for (Isa isa : supported_isas()) {
    force_isa(isa);
    float out[rows];
    dot_f16_lanes16_rows(x.data(), stride, rows, y.data(), n, 128, out);
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_FALSE(std::isnan(out[r])) << isa_name(isa) << " row " << r;
      EXPECT_EQ(float_bits(out[r]), float_bits(dot_f16_lanes16(x.data() + r * stride, y.data(), n, 128)));
    }
  }
}

}  // namespace
}  // namespace a3s::power::kernels::test

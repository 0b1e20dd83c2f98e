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

// A paged row (f16_pages.h) gives the bits of the same row stored contiguously, on every ISA, for
// page sizes 16 … 256 and lengths across page boundaries; padding in the last page is never read.
TEST(DotF16Lanes16, PagedRowsEqualContiguousRowsOnEveryIsa) {
  std::mt19937 rng(15);
  const int64_t rows = 7, max_n = 300;
  const auto flat = random_f16(static_cast<size_t>(rows * max_n), rng);  // row r at r * max_n
  const auto y = random_f16(static_cast<size_t>(max_n), rng);
  for (int log2 : {4, 5, 6, 8}) {
    const int64_t page = int64_t{1} << log2;
    const int64_t n_pages = (max_n + page - 1) / page;
    // Pages in reverse order in memory, with a NaN-filled gap before row 0 and NaN past each row's end.
    const int64_t offset = 3;
    std::vector<std::vector<uint16_t>> storage(static_cast<size_t>(n_pages),
                                               std::vector<uint16_t>(static_cast<size_t>(offset + rows * page), 0x7E00));
    std::vector<const uint16_t*> blocks(static_cast<size_t>(n_pages));
    for (int64_t b = 0; b < n_pages; ++b) blocks[static_cast<size_t>(b)] = storage[static_cast<size_t>(n_pages - 1 - b)].data();
    for (int64_t n : {1, 15, 16, 17, 31, 32, 63, 64, 65, 100, 128, 200, 257, 300}) {
      for (auto& s : storage) std::fill(s.begin(), s.end(), uint16_t{0x7E00});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < n; ++k)
          const_cast<uint16_t*>(blocks[static_cast<size_t>(k >> log2)])[offset + r * page + (k & (page - 1))] =
              flat[static_cast<size_t>(r * max_n + k)];
      const F16Pages pages{blocks.data(), log2, offset, page};
      const int64_t padded = (n + 31) / 32 * 32;
      IsaGuard guard(Isa::Scalar);
      std::vector<float> ref(static_cast<size_t>(rows));
      dot_f16_lanes16_rows(flat.data(), max_n, rows, y.data(), n, padded, ref.data());
      for (Isa isa : supported_isas()) {
        force_isa(isa);
        std::vector<float> out(static_cast<size_t>(rows) + 1, -7.0f);
        dot_f16_lanes16_pages(pages, rows, y.data(), n, padded, out.data());
        for (int64_t r = 0; r < rows; ++r)
          EXPECT_EQ(float_bits(out[static_cast<size_t>(r)]), float_bits(ref[static_cast<size_t>(r)]))
              << isa_name(isa) << " page=" << page << " n=" << n << " row " << r;
        EXPECT_EQ(out[static_cast<size_t>(rows)], -7.0f) << "wrote past the last row";
      }
    }
  }
}

// Several vectors at once (attention: the query heads of one KV head) give each vector's own bits,
// on every ISA, contiguous and paged, for counts across the kernels' group of eight vectors and row
// counts that leave a partial group of four rows; nothing is written past any output.
TEST(DotF16Lanes16, SeveralVectorsGiveEachVectorsBitsOnEveryIsa) {
  std::mt19937 rng(16);
  const int64_t rows = 11, n = 200, padded = 224, page = 64;
  const auto flat = random_f16(static_cast<size_t>(rows * n), rng);
  const int64_t n_pages = (n + page - 1) / page;
  std::vector<std::vector<uint16_t>> storage(static_cast<size_t>(n_pages), std::vector<uint16_t>(static_cast<size_t>(rows * page), 0x7E00));
  std::vector<const uint16_t*> blocks;
  for (auto& st : storage) blocks.push_back(st.data());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < n; ++k) storage[static_cast<size_t>(k / page)][static_cast<size_t>(r * page + k % page)] = flat[static_cast<size_t>(r * n + k)];
  const F16Pages pages{blocks.data(), 6, 0, page};
  for (int n_y : {1, 2, 3, 8, 9, 17}) {
    std::vector<std::vector<uint16_t>> ys;
    std::vector<const uint16_t*> y;
    for (int q = 0; q < n_y; ++q) ys.push_back(random_f16(static_cast<size_t>(n), rng));
    for (const auto& v : ys) y.push_back(v.data());
    for (Isa isa : supported_isas()) {
      IsaGuard guard(isa);
      for (bool paged : {false, true}) {
        std::vector<std::vector<float>> outs(static_cast<size_t>(n_y), std::vector<float>(static_cast<size_t>(rows) + 1, -7.0f));
        std::vector<float*> out;
        for (auto& o : outs) out.push_back(o.data());
        if (paged) {
          dot_f16_lanes16_pages(pages, rows, y.data(), n_y, n, padded, out.data());
        } else {
          dot_f16_lanes16_rows(flat.data(), n, rows, y.data(), n_y, n, padded, out.data());
        }
        for (int q = 0; q < n_y; ++q) {
          std::vector<float> one(static_cast<size_t>(rows));
          dot_f16_lanes16_rows(flat.data(), n, rows, y[static_cast<size_t>(q)], n, padded, one.data());
          for (int64_t r = 0; r < rows; ++r) {
            ASSERT_EQ(float_bits(outs[static_cast<size_t>(q)][static_cast<size_t>(r)]), float_bits(one[static_cast<size_t>(r)]))
                << isa_name(isa) << (paged ? " paged" : " rows") << " n_y=" << n_y << " q=" << q << " r=" << r;
          }
          EXPECT_EQ(outs[static_cast<size_t>(q)][static_cast<size_t>(rows)], -7.0f) << "wrote past the last row";
        }
      }
    }
  }
}

}  // namespace
}  // namespace a3s::power::kernels::test

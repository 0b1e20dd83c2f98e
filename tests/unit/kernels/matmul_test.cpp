// matmul: the tiled, threaded result equals a naive loop of vec_dot and the scalar reference bit for
// bit, for every type and ISA, across shapes that exercise partial row blocks, token tiles and the
// float tails; it is close to the dot product of the dequantized rows; bad shapes are rejected.
#include <climits>

#include "a3s/power/error.h"
#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

struct MatmulCase {
  TensorType type;
  Isa isa;
};

std::vector<MatmulCase> matmul_cases() {
  std::vector<MatmulCase> out;
  for (Isa isa : all_isas()) {  // unsupported ones are reported as skipped
    for (TensorType t : weight_types()) out.push_back({t, isa});
  }
  return out;
}

class Matmul : public testing::TestWithParam<MatmulCase> {};

TEST_P(Matmul, TiledEqualsNaiveLoopAndScalarPath) {
  const auto [type, isa] = GetParam();
  A3S_SKIP_UNLESS_ISA_SUPPORTED(isa);
  IsaGuard guard(isa);
  const TensorType act = vec_dot_type(type);
  const int64_t bs = type_info(type).block_size;
  // Float rows: 108 = 6 steps of 16, one step of 8 and a tail of 4.
  const int64_t n_cols = bs == 256 ? 512 : bs == 32 ? 96 : 108;
  std::mt19937 rng(static_cast<uint32_t>(type) + 100);
  ThreadPool pool1(1), pool3(3);
  for (int64_t n_rows : {1, 37, 70}) {
    for (int64_t n_tokens : {1, 3, 4, 7, 13, 33, 70}) {
      const size_t wb = row_bytes(type, n_cols), xb = row_bytes(act, n_cols);
      Buffer W(wb * static_cast<size_t>(n_rows)), X(xb * static_cast<size_t>(n_tokens));
      for (int64_t r = 0; r < n_rows; ++r) fill_random_row(rng, type, W.data() + r * wb, n_cols);
      const auto xf = random_floats(rng, n_tokens * n_cols);
      quantize_rows(act, xf.data(), X.data(), n_tokens, n_cols, nullptr);

      std::vector<float> Y1(static_cast<size_t>(n_rows * n_tokens), -1.0f), Y3(Y1.size(), -2.0f);
      matmul(type, W.data(), n_rows, n_cols, X.data(), n_tokens, Y1.data(), pool1);
      matmul(type, W.data(), n_rows, n_cols, X.data(), n_tokens, Y3.data(), pool3);
      for (int64_t t = 0; t < n_tokens; ++t) {
        for (int64_t r = 0; r < n_rows; ++r) {
          const uint8_t* w_row = W.data() + r * wb;
          const uint8_t* x_row = X.data() + t * xb;
          const float want = active_matmul_dot(type, n_tokens, n_cols, w_row, x_row);
          const size_t i = static_cast<size_t>(t * n_rows + r);
          ASSERT_EQ(float_bits(Y1[i]), float_bits(want))
              << type_name(type) << " rows=" << n_rows << " tokens=" << n_tokens << " t=" << t << " r=" << r;
          ASSERT_EQ(float_bits(Y1[i]), float_bits(scalar_matmul_dot(type, n_tokens, n_cols, w_row, x_row)))
              << type_name(type) << " rows=" << n_rows << " tokens=" << n_tokens << " t=" << t << " r=" << r;
          ASSERT_EQ(float_bits(Y1[i]), float_bits(Y3[i])) << "thread count changed the result";
          if (r >= 2) continue;  // the tolerance check on a few rows per token is enough
          const RefDot ref = expected_dot(type, w_row, act, x_row, n_cols);
          ASSERT_NEAR(Y1[i], ref.value, 1e-5 * ref.magnitude)
              << type_name(type) << " rows=" << n_rows << " tokens=" << n_tokens << " t=" << t << " r=" << r;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypesAllIsas, Matmul, testing::ValuesIn(matmul_cases()),
                         [](const testing::TestParamInfo<MatmulCase>& i) {
                           return std::string(isa_name(i.param.isa)) + "_" + type_name(i.param.type);
                         });

// Prefill through the panel kernels of the types that have them (kernel_table.h): wide rows make a
// panel large, so one thread's rows are packed in several groups; 419 rows end in a partial panel and
// 45 tokens in a partial token tile. Every output equals the scalar reference bit for bit, on every ISA.
TEST(MatmulPanels, GroupsOfPanelsAndPartialPanelsEqualTheReference) {
  for (TensorType type : {TensorType::Q4_0, TensorType::Q5_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::Q5_K,
                          TensorType::Q6_K}) {
    const TensorType act = vec_dot_type(type);
    const int64_t n_cols = 4096, n_rows = 419, n_tokens = 45;
    std::mt19937 rng(static_cast<uint32_t>(type) + 7);
    const size_t wb = row_bytes(type, n_cols), xb = row_bytes(act, n_cols);
    Buffer W(wb * n_rows), X(xb * n_tokens);
    for (int64_t r = 0; r < n_rows; ++r) fill_random_row(rng, type, W.data() + r * wb, n_cols);
    const auto xf = random_floats(rng, n_tokens * n_cols);
    quantize_rows(act, xf.data(), X.data(), n_tokens, n_cols, nullptr);
    std::vector<float> want(static_cast<size_t>(n_rows * n_tokens));
    for (int64_t t = 0; t < n_tokens; ++t) {
      for (int64_t r = 0; r < n_rows; ++r)
        want[static_cast<size_t>(t * n_rows + r)] =
            scalar_matmul_dot(type, n_tokens, n_cols, W.data() + r * wb, X.data() + t * xb);
    }
    for (Isa isa : all_isas()) {
      if (!isa_supported(isa)) continue;  // the parameterised suite above reports the skip
      IsaGuard guard(isa);
      for (int threads : {1, 2}) {  // one thread: one task of 27 panels, packed in two or three groups
        ThreadPool pool(threads);
        std::vector<float> Y(want.size(), -1.0f);
        matmul(type, W.data(), n_rows, n_cols, X.data(), n_tokens, Y.data(), pool);
        for (size_t i = 0; i < Y.size(); ++i) {
          ASSERT_EQ(float_bits(Y[i]), float_bits(want[i])) << isa_name(isa) << " " << type_name(type) << " threads="
                                                           << threads << " t=" << i / n_rows << " r=" << i % n_rows;
        }
      }
    }
  }
}

// The AVX-512 panel kernels exist in two forms that differ only in where they read ahead (the first-
// or second-level cache, kernel_table.h: panel_read_ahead). The active table holds the form of this
// CPU's rule; both forms give the scalar reference's bits for decode and small batches, a full and a
// partial panel, so the form a CPU does not pick is tested too.
TEST(MatmulPanels, BothReadAheadFormsGiveTheReferenceBits) {
  KernelTable l1, l2;
  if (!install_avx512_panel_for_testing(l1, PrefetchInto::kL1))
    GTEST_SKIP() << "the AVX-512 path is not built or this CPU lacks AVX-512 F/BW/VL/VNNI";
  ASSERT_TRUE(install_avx512_panel_for_testing(l2, PrefetchInto::kL2));
  const KernelTable& picked = panel_read_ahead() == PrefetchInto::kL2 ? l2 : l1;
  IsaGuard guard(Isa::Avx512);
  const size_t q5_k = static_cast<size_t>(TensorType::Q5_K);
  EXPECT_EQ(l1.panel[q5_k].run, l2.panel[q5_k].run);  // packed per call into L2: one form
  EXPECT_EQ(active_table().panel[q5_k].run, l1.panel[q5_k].run);
  const int64_t n_cols = 512;
  std::mt19937 rng(23);
  for (TensorType type : {TensorType::Q4_0, TensorType::Q5_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::Q6_K}) {
    const size_t slot = static_cast<size_t>(type);
    ASSERT_NE(l1.panel[slot].run, nullptr) << type_name(type);
    EXPECT_NE(l1.panel[slot].run, l2.panel[slot].run) << type_name(type);
    EXPECT_EQ(l1.panel[slot].read_ahead, PrefetchInto::kL1) << type_name(type);
    EXPECT_EQ(l2.panel[slot].read_ahead, PrefetchInto::kL2) << type_name(type);
    EXPECT_EQ(active_table().panel[slot].read_ahead, panel_read_ahead()) << type_name(type);
    EXPECT_EQ(active_table().panel[slot].run, picked.panel[slot].run) << type_name(type);
    const TensorType act = vec_dot_type(type);
    const size_t wb = row_bytes(type, n_cols), xb = row_bytes(act, n_cols);
    for (int n_w : {16, 13}) {
      Buffer W(wb * static_cast<size_t>(n_w)), P(l1.panel[slot].panel_bytes(n_cols));
      for (int r = 0; r < n_w; ++r) fill_random_row(rng, type, W.data() + static_cast<size_t>(r) * wb, n_cols);
      l1.panel[slot].pack(n_cols, W.data(), wb, n_w, P.data());
      for (int n_x : {1, 2, 8, 11}) {
        Buffer X(xb * static_cast<size_t>(n_x));
        const auto xf = random_floats(rng, n_x * n_cols);
        quantize_rows(act, xf.data(), X.data(), n_x, n_cols, nullptr);
        const size_t aux_stride = l1.panel[slot].aux_bytes != nullptr ? l1.panel[slot].aux_bytes(n_cols) : 0;
        Buffer aux(std::max<size_t>(1, aux_stride * static_cast<size_t>(n_x)));
        if (aux_stride != 0) l1.panel[slot].prepare(n_cols, X.data(), xb, n_x, aux.data());
        for (const KernelTable* form : {&l1, &l2}) {
          std::vector<float> Y(static_cast<size_t>(n_x * n_w), -1.0f);
          form->panel[slot].run(n_cols, P.data(), n_w, X.data(), xb, aux_stride != 0 ? aux.data() : nullptr, n_x,
                                Y.data(), static_cast<size_t>(n_w));
          for (int t = 0; t < n_x; ++t) {
            for (int r = 0; r < n_w; ++r) {
              const float want = scalar_matmul_dot(type, n_x, n_cols, W.data() + static_cast<size_t>(r) * wb,
                                                   X.data() + static_cast<size_t>(t) * xb);
              ASSERT_EQ(float_bits(Y[static_cast<size_t>(t * n_w + r)]), float_bits(want))
                  << type_name(type) << (form == &l1 ? " L1" : " L2") << " n_w=" << n_w << " n_x=" << n_x
                  << " t=" << t << " r=" << r;
            }
          }
        }
      }
    }
  }
}

// Weights packed at load (kernels.h): where the ISA packs a type (Q4_0 on avx512), matmul_packed from
// the packed form equals matmul on the rows bit for bit for every token count (decode, small
// batches, a partial token tile) and a partial last panel; under another ISA it computes nothing and
// says so; types the ISA does not pack report 0 bytes.
TEST(MatmulPacked, PackedWeightsGiveTheRowsBitsForEveryTokenCount) {
  const int64_t n_cols = 512, n_rows = 53;
  std::mt19937 rng(11);
  bool packed_somewhere = false;
  for (TensorType type : {TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::Q6_K}) {
    const TensorType act = vec_dot_type(type);
    const size_t wb = row_bytes(type, n_cols), xb = row_bytes(act, n_cols);
    Buffer W(wb * n_rows);
    for (int64_t r = 0; r < n_rows; ++r) fill_random_row(rng, type, W.data() + r * wb, n_cols);
    for (Isa isa : all_isas()) {
      if (!isa_supported(isa)) continue;
      IsaGuard guard(isa);
      ThreadPool pool(2);
      const size_t bytes = packed_weight_bytes(type, n_rows, n_cols);
      if (bytes == 0) {
        EXPECT_THROW(pack_weight(type, W.data(), n_rows, n_cols, nullptr, pool), Error);
        continue;
      }
      packed_somewhere = true;
      EXPECT_GE(bytes, wb * n_rows) << isa_name(isa) << " " << type_name(type);
      // Rows too wide for the panels' 32-bit row offsets (more than INT32_MAX / 16 bytes) are not
      // packed; nothing is read to say so.
      const int64_t wide = (int64_t{INT32_MAX} / 16 / static_cast<int64_t>(wb) + 1) * n_cols;
      EXPECT_EQ(packed_weight_bytes(type, 16, wide), 0u) << isa_name(isa) << " " << type_name(type);
      EXPECT_GT(packed_weight_bytes(type, 16, wide - n_cols), 0u) << isa_name(isa) << " " << type_name(type);
      EXPECT_THROW(pack_weight(type, W.data(), 16, wide, nullptr, pool), Error);
      Buffer P(bytes);
      EXPECT_EQ(pack_weight(type, W.data(), n_rows, n_cols, P.data(), pool), isa);
      for (int64_t n_tokens : {1, 2, 3, 5, 16, 17, 40}) {
        Buffer X(xb * static_cast<size_t>(n_tokens));
        const auto xf = random_floats(rng, n_tokens * n_cols);
        quantize_rows(act, xf.data(), X.data(), n_tokens, n_cols, nullptr);
        std::vector<float> want(static_cast<size_t>(n_rows * n_tokens)), got(want.size(), -1.0f);
        matmul(type, W.data(), n_rows, n_cols, X.data(), n_tokens, want.data(), pool);
        ASSERT_TRUE(matmul_packed(isa, type, P.data(), n_rows, n_cols, X.data(), n_tokens, got.data(), pool));
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(float_bits(got[i]), float_bits(want[i])) << isa_name(isa) << " " << type_name(type)
                                                             << " tokens=" << n_tokens << " i=" << i;
        }
        for (Isa other : all_isas()) {
          if (other == isa || !isa_supported(other)) continue;
          std::vector<float> untouched(want.size(), -1.0f);
          EXPECT_FALSE(matmul_packed(other, type, P.data(), n_rows, n_cols, X.data(), n_tokens, untouched.data(), pool));
          EXPECT_EQ(untouched[0], -1.0f);
        }
      }
    }
  }
  if (!packed_somewhere) GTEST_SKIP() << "no ISA on this CPU packs weights at load (Q4_0 packs on avx512)";
}

TEST(MatmulShapes, OutputStrideWritesSideBySide) {
  // Two weight matrices written into one [tokens, 24] buffer at columns 0 and 13.
  const int64_t cols = 64, tokens = 5;
  std::mt19937 rng(21);
  const size_t wb = row_bytes(TensorType::Q8_0, cols);
  Buffer A(wb * 13), B(wb * 11), X(wb * tokens);
  for (int r = 0; r < 13; ++r) fill_random_row(rng, TensorType::Q8_0, A.data() + r * wb, cols);
  for (int r = 0; r < 11; ++r) fill_random_row(rng, TensorType::Q8_0, B.data() + r * wb, cols);
  const auto xf = random_floats(rng, tokens * cols);
  quantize_rows(TensorType::Q8_0, xf.data(), X.data(), tokens, cols, nullptr);
  ThreadPool pool(2);
  std::vector<float> Y(static_cast<size_t>(tokens * 24), -7.0f), Ya(tokens * 13), Yb(tokens * 11);
  matmul(TensorType::Q8_0, A.data(), 13, cols, X.data(), tokens, Y.data(), 24, pool);
  matmul(TensorType::Q8_0, B.data(), 11, cols, X.data(), tokens, Y.data() + 13, 24, pool);
  matmul(TensorType::Q8_0, A.data(), 13, cols, X.data(), tokens, Ya.data(), pool);
  matmul(TensorType::Q8_0, B.data(), 11, cols, X.data(), tokens, Yb.data(), pool);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t r = 0; r < 13; ++r) EXPECT_EQ(Y[t * 24 + r], Ya[t * 13 + r]);
    for (int64_t r = 0; r < 11; ++r) EXPECT_EQ(Y[t * 24 + 13 + r], Yb[t * 11 + r]);
  }
  EXPECT_THROW(matmul(TensorType::Q8_0, A.data(), 13, cols, X.data(), tokens, Y.data(), 12, pool), Error);
}

TEST(MatmulShapes, EmptyAndZeroColumnShapes) {
  ThreadPool pool(2);
  std::vector<float> Y(6, 5.0f);
  matmul(TensorType::Q8_0, nullptr, 0, 32, nullptr, 3, Y.data(), pool);  // no rows: nothing written
  EXPECT_EQ(Y[0], 5.0f);
  matmul(TensorType::F32, nullptr, 2, 0, nullptr, 3, Y.data(), pool);  // empty dot products are 0
  for (float v : Y) EXPECT_EQ(v, 0.0f);
}

TEST(MatmulShapes, RejectsBadShapes) {
  ThreadPool pool(1);
  std::vector<float> Y(16);
  Buffer b(4096);
  try {
    matmul(TensorType::Q4_K, b.data(), 1, 100, b.data(), 1, Y.data(), pool);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  EXPECT_THROW(matmul(TensorType::Q8_0, b.data(), -1, 32, b.data(), 1, Y.data(), pool), Error);
  EXPECT_THROW(matmul(TensorType::Q8_0, b.data(), 1, 32, b.data(), -2, Y.data(), pool), Error);
  try {
    matmul(TensorType::Q8_K, b.data(), 1, 256, b.data(), 1, Y.data(), pool);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kUnsupportedType);
  }
}

}  // namespace
}  // namespace a3s::power::kernels::test

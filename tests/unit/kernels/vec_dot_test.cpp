// vec_dot for every weight type and every ISA path: equals the double-precision dot product of the
// dequantized rows (within float rounding), and the scalar reference path bit for bit.
#include "a3s/power/error.h"
#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

TEST(VecDotType, MatchesLlamaCppCpuBackend) {
  EXPECT_EQ(vec_dot_type(TensorType::F32), TensorType::F32);
  EXPECT_EQ(vec_dot_type(TensorType::F16), TensorType::F16);
  EXPECT_EQ(vec_dot_type(TensorType::BF16), TensorType::BF16);
  EXPECT_EQ(vec_dot_type(TensorType::Q4_0), TensorType::Q8_0);
  EXPECT_EQ(vec_dot_type(TensorType::Q5_0), TensorType::Q8_0);
  EXPECT_EQ(vec_dot_type(TensorType::Q8_0), TensorType::Q8_0);
  EXPECT_EQ(vec_dot_type(TensorType::Q4_1), TensorType::Q8_1);
  EXPECT_EQ(vec_dot_type(TensorType::Q5_1), TensorType::Q8_1);
  EXPECT_EQ(vec_dot_type(TensorType::IQ4_NL), TensorType::Q8_0);
  EXPECT_EQ(vec_dot_type(TensorType::IQ4_XS), TensorType::Q8_K);
  for (TensorType t :
       {TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K}) {
    EXPECT_EQ(vec_dot_type(t), TensorType::Q8_K) << type_name(t);
  }
  EXPECT_THROW(vec_dot_type(TensorType::Q8_K), Error);
  EXPECT_THROW(vec_dot_type(TensorType::Q8_1), Error);
  EXPECT_THROW(vec_dot_type(static_cast<TensorType>(99)), Error);
}

TEST(VecDot, RejectsBadArguments) {
  Buffer w(1024), x(1024);
  float out = 1.0f;
  try {
    vec_dot(TensorType::Q8_K, 256, &out, w.data(), x.data());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kUnsupportedType);
  }
  try {
    vec_dot(TensorType::Q4_K, 255, &out, w.data(), x.data());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  vec_dot(TensorType::Q4_0, 0, &out, nullptr, nullptr);
  EXPECT_EQ(out, 0.0f);
  EXPECT_THROW(vec_dot_kernel(TensorType::Q8_K), Error);
  EXPECT_THROW(vec_dot_kernel(static_cast<TensorType>(5)), Error);
  EXPECT_NE(vec_dot_kernel(TensorType::F16), nullptr);
}

struct VecDotCase {
  TensorType type;
  Isa isa;
};

std::vector<VecDotCase> vec_dot_cases() {
  std::vector<VecDotCase> out;
  for (Isa isa : all_isas()) {  // unsupported ones are reported as skipped
    for (TensorType t : weight_types()) out.push_back({t, isa});
  }
  return out;
}

class VecDot : public testing::TestWithParam<VecDotCase> {};

// Row lengths with odd block counts and SIMD tails.
std::vector<int64_t> lengths_for(TensorType t) {
  const int64_t bs = type_info(t).block_size;
  if (bs == 1) return {1, 7, 8, 15, 16, 24, 31, 33, 40, 64, 100, 531, 4096};
  if (bs == 32) return {32, 64, 96, 544, 4096};
  return {256, 512, 768, 4096};
}

TEST_P(VecDot, MatchesDequantizedDotAndScalarPath) {
  const auto [type, isa] = GetParam();
  A3S_SKIP_UNLESS_ISA_SUPPORTED(isa);
  IsaGuard guard(isa);
  const TensorType act = vec_dot_type(type);
  std::mt19937 rng(static_cast<uint32_t>(type) * 31 + 7);
  for (int64_t n : lengths_for(type)) {
    for (int rep = 0; rep < 4; ++rep) {
      Buffer w(row_bytes(type, n)), x(row_bytes(act, n));
      fill_random_row(rng, type, w.data(), n);
      const auto xf = random_floats(rng, n, rep == 3 ? 100.0f : 1.0f);
      quantize_row(act, xf.data(), x.data(), n);

      float got = 0.0f;
      vec_dot(type, n, &got, w.data(), x.data());
      const RefDot ref = expected_dot(type, w.data(), act, x.data(), n);
      ASSERT_NEAR(got, ref.value, 1e-5 * ref.magnitude) << type_name(type) << " n=" << n << " rep=" << rep;

      float direct = 0.0f;
      vec_dot_kernel(type)(n, &direct, w.data(), x.data());
      ASSERT_EQ(direct, got) << "vec_dot_kernel differs from vec_dot";

      const float scalar = scalar_dot(type, n, w.data(), x.data());
      ASSERT_EQ(float_bits(got), float_bits(scalar))
          << type_name(type) << " n=" << n << " rep=" << rep << ": " << got << " vs scalar " << scalar;
    }
  }
}

TEST_P(VecDot, ExtremeQuantsStayExact) {
  // Every quant at its extreme with unit-ish scales: integer sums must not overflow or saturate.
  const auto [type, isa] = GetParam();
  A3S_SKIP_UNLESS_ISA_SUPPORTED(isa);
  IsaGuard guard(isa);
  const TensorType act = vec_dot_type(type);
  const int64_t n = 4096;
  Buffer w(row_bytes(type, n)), x(row_bytes(act, n));
  std::mt19937 rng(3);
  fill_random_row(rng, type, w.data(), n);
  const size_t wb = row_bytes(type, n);
  if (type_info(type).block_size > 1) {
    // Saturate every quant byte (all bits set) but keep the scales of the random fill.
    const auto scales = std::vector<uint8_t>(w.data(), w.data() + wb);
    std::memset(w.data(), 0xFF, wb);
    const size_t bb = type_info(type).block_bytes;
    for (size_t b = 0; b < wb / bb; ++b) {
      uint8_t* blk = w.data() + b * bb;
      const uint8_t* src = scales.data() + b * bb;
      switch (type) {
        case TensorType::Q4_0:
        case TensorType::Q5_0:
        case TensorType::Q8_0:
        case TensorType::IQ4_NL:
          std::memcpy(blk, src, 2);
          break;
        case TensorType::IQ4_XS:
          std::memcpy(blk, src, 2);  // d; scales_h and scales_l stay all ones (the largest scale, 31)
          break;
        case TensorType::Q4_1:
        case TensorType::Q5_1:
          std::memcpy(blk, src, 4);
          break;
        case TensorType::Q2_K:
          std::memcpy(blk + 80, src + 80, 4);
          break;
        case TensorType::Q3_K:
          std::memcpy(blk + 108, src + 108, 2);
          break;
        case TensorType::Q4_K:
        case TensorType::Q5_K:
          std::memcpy(blk, src, 4);
          break;
        case TensorType::Q6_K:
          std::memcpy(blk + 208, src + 208, 2);
          break;
        default:
          break;
      }
    }
  }
  const std::vector<float> xf(static_cast<size_t>(n), 1.0f);  // all equal → activation quants ±127
  quantize_row(act, xf.data(), x.data(), n);
  float got = 0.0f;
  vec_dot(type, n, &got, w.data(), x.data());
  const RefDot ref = expected_dot(type, w.data(), act, x.data(), n);
  EXPECT_NEAR(got, ref.value, 1e-5 * ref.magnitude) << type_name(type);
  EXPECT_EQ(float_bits(got), float_bits(scalar_dot(type, n, w.data(), x.data()))) << type_name(type);
}

INSTANTIATE_TEST_SUITE_P(AllTypesAllIsas, VecDot, testing::ValuesIn(vec_dot_cases()),
                         [](const testing::TestParamInfo<VecDotCase>& i) {
                           return std::string(isa_name(i.param.isa)) + "_" + type_name(i.param.type);
                         });

// Quantized weight types only (their activations are integer blocks).
class VecDotQuantized : public testing::TestWithParam<VecDotCase> {};

std::vector<VecDotCase> quantized_cases() {
  std::vector<VecDotCase> out;
  for (const VecDotCase& c : vec_dot_cases()) {
    if (type_info(c.type).block_size > 1) out.push_back(c);
  }
  return out;
}

TEST_P(VecDotQuantized, ArbitraryActivationBlocksMatchScalarPath) {
  // Activation blocks that no quantizer wrote: random quants in [-127, 127] (the range every
  // activation quantizer produces) and, for Q8_K, block sums unrelated to the quants. The paths
  // must still agree bit for bit: the scalar reference uses the bsums exactly where AVX2 does.
  const auto [type, isa] = GetParam();
  A3S_SKIP_UNLESS_ISA_SUPPORTED(isa);
  IsaGuard guard(isa);
  const TensorType act = vec_dot_type(type);
  std::mt19937 rng(static_cast<uint32_t>(type) * 7 + 1);
  std::uniform_int_distribution<int> q(-127, 127), sum(-2032, 2032);
  for (int64_t n : lengths_for(type)) {
    Buffer w(row_bytes(type, n)), x(row_bytes(act, n));
    fill_random_row(rng, type, w.data(), n);
    const auto xf = random_floats(rng, n);
    quantize_row(act, xf.data(), x.data(), n);  // sane scales
    const int64_t nb = n / type_info(act).block_size;
    for (int64_t b = 0; b < nb; ++b) {
      int8_t* qs = nullptr;
      if (act == TensorType::Q8_K) {
        auto& blk = reinterpret_cast<BlockQ8_K*>(x.data())[b];
        qs = blk.qs;
        for (auto& s : blk.bsums) s = static_cast<int16_t>(sum(rng));
      } else if (act == TensorType::Q8_1) {
        qs = reinterpret_cast<BlockQ8_1*>(x.data())[b].qs;
      } else {
        qs = reinterpret_cast<BlockQ8_0*>(x.data())[b].qs;
      }
      for (int i = 0; i < type_info(act).block_size; ++i) qs[i] = static_cast<int8_t>(q(rng));
    }
    float got = 0.0f;
    vec_dot(type, n, &got, w.data(), x.data());
    const float scalar = scalar_dot(type, n, w.data(), x.data());
    ASSERT_EQ(float_bits(got), float_bits(scalar))
        << type_name(type) << " n=" << n << ": " << got << " vs scalar " << scalar;
  }
}

INSTANTIATE_TEST_SUITE_P(QuantizedTypesAllIsas, VecDotQuantized, testing::ValuesIn(quantized_cases()),
                         [](const testing::TestParamInfo<VecDotCase>& i) {
                           return std::string(isa_name(i.param.isa)) + "_" + type_name(i.param.type);
                         });

}  // namespace
}  // namespace a3s::power::kernels::test

// ---- BF16: the pair order of llama.cpp's AVX512-BF16 kernels (src/kernels/bf16_pairs.h) ---------

namespace a3s::power::kernels::test {
namespace {

uint16_t bf16_bits(float f) { return static_cast<uint16_t>(float_bits(f) >> 16); }  // exact for these values

// Lane 0 sees 1 (the odd element of the first pair), then +2^-24 (odd) and -2^-24 (even) in the next
// 32-value step. One accumulator, odd before even: 1 + 2^-24 rounds to 1 (tie to even), then
// 1 - 2^-24 is exact. Even before odd, or a second accumulator for the next step, gives exactly 1.
struct OrderCase {
  std::vector<uint16_t> w = std::vector<uint16_t>(64, bf16_bits(1.0f));
  std::vector<uint16_t> x = std::vector<uint16_t>(64, 0);
  OrderCase() {
    x[1] = bf16_bits(1.0f);
    x[33] = bf16_bits(std::ldexp(1.0f, -24));
    x[32] = bf16_bits(-std::ldexp(1.0f, -24));
  }
};

TEST(VecDotBf16, BatchOrderIsOneAccumulatorOddBeforeEven) {
  OrderCase c;
  for (Isa isa : supported_isas()) {
    IsaGuard guard(isa);
    EXPECT_EQ(active_matmul_dot(TensorType::BF16, 2, 64, c.w.data(), c.x.data()), 1.0f - std::ldexp(1.0f, -24))
        << isa_name(isa);
  }
}

TEST(VecDotBf16, OneTokenOrderHasTwoAccumulatorsOver64Values) {
  OrderCase c;
  for (Isa isa : supported_isas()) {
    IsaGuard guard(isa);
    float out = 0.0f;
    vec_dot(TensorType::BF16, 64, &out, c.w.data(), c.x.data());
    EXPECT_EQ(out, 1.0f) << isa_name(isa);
  }
}

TEST(VecDotBf16, EveryIsaMatchesTheScalarReferenceInBothOrders) {
  std::mt19937 rng(1234);
  for (int64_t n : {1, 31, 32, 63, 64, 96, 100, 256, 768, 4096}) {
    std::vector<uint16_t> w(static_cast<size_t>(n)), x(static_cast<size_t>(n));
    const auto wf = random_floats(rng, n), xf = random_floats(rng, n);
    for (int64_t i = 0; i < n; ++i) {
      w[static_cast<size_t>(i)] = fp32_to_bf16(wf[static_cast<size_t>(i)]);
      x[static_cast<size_t>(i)] = fp32_to_bf16(xf[static_cast<size_t>(i)]);
    }
    double exact = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      exact += static_cast<double>(bf16_to_fp32(w[static_cast<size_t>(i)])) * bf16_to_fp32(x[static_cast<size_t>(i)]);
    }
    for (int64_t tokens : {1, 2}) {
      const float want = scalar_matmul_dot(TensorType::BF16, tokens, n, w.data(), x.data());
      EXPECT_NEAR(want, exact, 1e-5 * std::max(1.0, std::fabs(exact)) * static_cast<double>(n)) << n;
      for (Isa isa : supported_isas()) {
        IsaGuard guard(isa);
        EXPECT_EQ(float_bits(active_matmul_dot(TensorType::BF16, tokens, n, w.data(), x.data())), float_bits(want))
            << isa_name(isa) << " n=" << n << " tokens=" << tokens;
      }
    }
  }
}

}  // namespace
}  // namespace a3s::power::kernels::test

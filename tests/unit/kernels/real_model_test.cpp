// Real llama.cpp-quantized tensors: every tensor of the tiny test models, dequantized by our
// kernels, must be close to the same tensor of the F32 model (bounded relative error per type);
// and vec_dot on real rows must agree with the dot product of the dequantized rows (and, on every ISA,
// with the scalar reference bit for bit).
#include <filesystem>
#include <map>

#include "model/gguf/gguf_file.h"
#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

const std::string kModels = std::string(A3S_TESTDATA_DIR) + "/models/";

// Relative L2 error bound of a whole tensor for Gaussian-like weights, per stored type.
double bound_for(TensorType t) {
  switch (t) {
    case TensorType::F16:
      return 1e-3;
    case TensorType::BF16:
      return 5e-3;
    case TensorType::Q8_0:
      return 0.01;
    case TensorType::Q6_K:
      return 0.03;
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q5_K:
      return 0.06;
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q4_K:
      return 0.12;
    case TensorType::Q3_K:
      return 0.25;
    case TensorType::Q2_K:
      return 0.45;
    default:
      return 1e-9;
  }
}

struct ModelCase {
  std::string arch;   // "tiny-llama" / "tiny-qwen2"
  std::string quant;  // file suffix, e.g. "Q4_K_M"
};

class RealModel : public testing::TestWithParam<ModelCase> {};

TEST_P(RealModel, TensorsDequantizeCloseToF32Model) {
  const auto& [arch, quant] = GetParam();
  const std::string ref_path = kModels + arch + "-f32.gguf";
  const std::string q_path = kModels + arch + "-" + quant + ".gguf";
  if (!std::filesystem::exists(ref_path) || !std::filesystem::exists(q_path))
    GTEST_SKIP() << "test data missing";
  const auto ref = gguf::File::open(ref_path);
  const auto qf = gguf::File::open(q_path);

  std::map<TensorType, int> seen;
  for (const auto& ti : qf->tensors()) {
    const auto* rt = ref->find_tensor(ti.name);
    ASSERT_NE(rt, nullptr) << ti.name;
    ASSERT_EQ(rt->type, TensorType::F32) << ti.name;
    ASSERT_EQ(rt->ne, ti.ne) << ti.name;
    ++seen[ti.type];
    const int64_t n = ti.ne[0];
    const size_t qrow = row_bytes(ti.type, n);
    const auto* qdata = qf->tensor_data(ti);
    const auto* fdata = reinterpret_cast<const float*>(ref->tensor_data(*rt));
    double err = 0, norm = 0;
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t r = 0; r < ti.n_rows(); ++r) {
      dequantize_row(ti.type, qdata + static_cast<size_t>(r) * qrow, row.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double d = row[static_cast<size_t>(i)] - fdata[r * n + i];
        err += d * d;
        norm += static_cast<double>(fdata[r * n + i]) * fdata[r * n + i];
      }
    }
    const double rel = std::sqrt(err / std::max(norm, 1e-30));
    EXPECT_LT(rel, bound_for(ti.type)) << ti.name << " " << type_name(ti.type);

    // vec_dot on the first rows of 2-D weights against the dot of dequantized rows, per ISA.
    if (ti.n_dims < 2 || ti.type == TensorType::F32) continue;
    const TensorType act = vec_dot_type(ti.type);
    std::mt19937 rng(static_cast<uint32_t>(n));
    const auto xf = random_floats(rng, n);
    Buffer x(row_bytes(act, n));
    quantize_row(act, xf.data(), x.data(), n);
    for (Isa isa : supported_isas()) {
      IsaGuard guard(isa);
      for (int64_t r = 0; r < std::min<int64_t>(4, ti.n_rows()); ++r) {
        const uint8_t* w = qdata + static_cast<size_t>(r) * qrow;
        float got = 0;
        vec_dot(ti.type, n, &got, w, x.data());
        const RefDot want = expected_dot(ti.type, w, act, x.data(), n);
        ASSERT_NEAR(got, want.value, 1e-5 * want.magnitude)
            << ti.name << " row " << r << " " << isa_name(isa);
        ASSERT_EQ(float_bits(got), float_bits(scalar_dot(ti.type, n, w, x.data())))
            << ti.name << " row " << r << " " << isa_name(isa);
      }
    }
  }
  EXPECT_FALSE(seen.empty());
}

TEST(RealModelQ4_0, TokenEmbeddingRowMatchesF32) {
  const std::string ref_path = kModels + "tiny-llama-f32.gguf";
  const std::string q_path = kModels + "tiny-llama-Q4_0.gguf";
  if (!std::filesystem::exists(ref_path) || !std::filesystem::exists(q_path))
    GTEST_SKIP() << "test data missing";
  const auto ref = gguf::File::open(ref_path);
  const auto qf = gguf::File::open(q_path);
  const auto* qt = qf->find_tensor("token_embd.weight");
  const auto* ft = ref->find_tensor("token_embd.weight");
  ASSERT_NE(qt, nullptr);
  ASSERT_NE(ft, nullptr);
  const int64_t n = qt->ne[0];
  ASSERT_EQ(n, 256);
  const int64_t row = 17;
  const size_t qrow = row_bytes(qt->type, n);
  const auto y = dequantized(qt->type, qf->tensor_data(*qt) + row * qrow, n);
  const auto* f = reinterpret_cast<const float*>(ref->tensor_data(*ft)) + row * n;
  double err = 0, norm = 0, max_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    err += (y[i] - f[i]) * static_cast<double>(y[i] - f[i]);
    norm += f[i] * static_cast<double>(f[i]);
    max_abs = std::max(max_abs, std::fabs(static_cast<double>(f[i])));
  }
  EXPECT_LT(std::sqrt(err / norm), bound_for(qt->type)) << type_name(qt->type);
  // No element is off by more than one quantization step of its block (amax/8 for Q4_0).
  for (int64_t i = 0; i < n; ++i) EXPECT_LE(std::fabs(y[i] - f[i]), max_abs / 8 + 1e-6) << i;
}

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> out;
  for (const char* arch : {"tiny-llama", "tiny-qwen2"}) {
    for (const char* q : {"F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_M", "Q4_K_M",
                          "Q5_K_M", "Q6_K"}) {
      out.push_back({arch, q});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(TinyModels, RealModel, testing::ValuesIn(model_cases()),
                         [](const testing::TestParamInfo<ModelCase>& i) {
                           std::string s = i.param.arch + "_" + i.param.quant;
                           for (auto& c : s) {
                             if (c == '-') c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace a3s::power::kernels::test

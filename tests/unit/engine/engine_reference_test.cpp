// The engine's forward pass against the naive float oracle (reference_model.h), for both
// architectures and several weight types. Differences come only from the fp16 KV cache, fp16
// attention operands and quantized activations, so they stay small.
#include <gtest/gtest.h>

#include <cmath>

#include "a3s/power/engine.h"
#include "support/gguf_builder.h"
#include "reference_model.h"

namespace a3s::power {
namespace {

double rel_l2(const float* a, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (a[i] - ref[i]) * static_cast<double>(a[i] - ref[i]);
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return std::sqrt(num / den);
}

struct Case {
  const char* model;
  double tol;
};

class EngineVsReference : public ::testing::TestWithParam<Case> {};

TEST_P(EngineVsReference, LogitsMatchNaiveFloatImplementation) {
  const Case c = GetParam();
  const std::string path = testing::model_path(c.model);
  testing::ReferenceModel ref(path);
  auto model = Model::load(path, {.n_threads = 2, .n_batch = 4});  // several prefill batches
  Context ctx(model, {.n_ctx = 64});
  const std::vector<Token> tokens = {1, 403, 407, 261, 378, 454, 223, 445, 252, 30, 31};
  auto expect = ref.forward(std::vector<int>(tokens.begin(), tokens.end()));
  auto got = ctx.eval(tokens, /*all_logits=*/true);
  ASSERT_EQ(got.size(), tokens.size() * static_cast<size_t>(ref.n_vocab()));
  double worst = 0;
  for (size_t r = 0; r < tokens.size(); ++r) {
    const double e = rel_l2(got.data() + r * ref.n_vocab(), expect[r]);
    worst = std::max(worst, e);
    EXPECT_LT(e, c.tol) << "row " << r;
  }
  std::cout << "[          ] " << c.model << " max relative L2 vs float oracle: " << worst << "\n";
}

INSTANTIATE_TEST_SUITE_P(Models, EngineVsReference,
                         ::testing::Values(Case{"stories260K", 5e-3}, Case{"tiny-llama-f32", 5e-3},
                                           Case{"tiny-qwen2-f32", 5e-3}, Case{"tiny-llama-F16", 1e-2},
                                           Case{"tiny-qwen2-Q8_0", 2e-2}, Case{"tiny-qwen2-Q4_K_M", 5e-2}),
                         [](const auto& info) {
                           std::string n = info.param.model;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace a3s::power

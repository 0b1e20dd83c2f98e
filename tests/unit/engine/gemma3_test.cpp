// The gemma3 graph (arch.h, hparams.h): embeddings × sqrt(n_embd), per-head Q/K norms, post-attention
// and post-FFN norms, GeGLU, sliding-window layers with their own RoPE base between global layers,
// optional final logit soft-capping. Parity with llama.cpp is in tests/integration/parity; here: the
// window and the keys take effect where they should, the loader's checks, and chunked prefill and
// streaming keep the bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "engine/ops.h"
#include "chunked_logits.h"
#include "load_error.h"
#include "support/gguf_builder.h"
#include "support/temp_dir.h"
#include "synth/model_shape.h"
#include "synth/synthesize.h"

namespace a3s::power::gemma3_test {
namespace {

using testing::TempDir;
using testing::load_error;

// gemma3-tiny (3 layers: 0 and 2 slide over 8 positions, 1 is global), with shape changes.
std::string tiny_gemma3(const TempDir& dir, const std::string& name, int n_swa = 8) {
  const std::string path = dir.file(name + ".gguf");
  synth::SynthOptions o;
  o.shape = synth::find_shape_preset("gemma3-tiny");
  o.shape.n_swa = n_swa;
  o.type = synth::FileType::Q8_0;
  synth::synthesize(o, path, nullptr);
  return path;
}

std::string copy(const TempDir& dir, const std::string& base, const std::string& name,
                 std::vector<std::pair<std::string, gguf::Value>> keys, std::vector<std::string> removed = {}) {
  const std::string path = dir.file(name + ".gguf");
  testing::write_model_copy(base, keys, {}, removed, path);
  return path;
}

constexpr int kTokens = 30;

std::vector<float> logits(const std::string& path, int chunk = 0, WeightsMode weights = WeightsMode::Resident) {
  return testing::chunked_logits(path, testing::stride_tokens(kTokens, 173), static_cast<size_t>(chunk), weights);
}

// Rows [r0, r1) of two logits arrays are bitwise equal.
bool same_rows(const std::vector<float>& a, const std::vector<float>& b, int r0, int r1) {
  const size_t n_vocab = a.size() / kTokens;
  return a.size() == b.size() &&
         std::memcmp(a.data() + r0 * n_vocab, b.data() + r0 * n_vocab, (r1 - r0) * n_vocab * sizeof(float)) == 0;
}

TEST(Gemma3, TheWindowMattersOnlyPastItsLength) {
  // With an 8-position window the first 8 positions see their whole past: their logits equal those
  // of a model whose window covers everything; from position 8 on they differ.
  TempDir dir;
  const auto windowed = logits(tiny_gemma3(dir, "w8"));
  const auto wide = logits(tiny_gemma3(dir, "w4096", 4096));
  EXPECT_TRUE(same_rows(windowed, wide, 0, 8));
  EXPECT_FALSE(same_rows(windowed, wide, 8, 9));
  EXPECT_FALSE(same_rows(windowed, wide, kTokens - 1, kTokens));
}

TEST(Gemma3, TheLocalRopeBaseAppliesToSlidingLayers) {
  TempDir dir;
  const std::string base = tiny_gemma3(dir, "g3");
  const auto a = logits(base);
  const auto b = logits(copy(dir, base, "swa-base", {{"gemma3.rope.freq_base_swa", testing::f32_value(500.0f)}}));
  EXPECT_TRUE(same_rows(a, b, 0, 1)) << "position 0 has no rotation";
  EXPECT_FALSE(same_rows(a, b, 1, kTokens));
}

TEST(Gemma3, SoftCappingBoundsTheLogits) {
  TempDir dir;
  const std::string base = tiny_gemma3(dir, "g3");
  const auto plain = logits(base);
  const auto capped = logits(copy(dir, base, "capped", {{"gemma3.final_logit_softcapping", testing::f32_value(0.5f)}}));
  ASSERT_EQ(plain.size(), capped.size());
  float max_abs = 0;
  for (size_t i = 0; i < capped.size(); ++i) {
    max_abs = std::max(max_abs, std::fabs(capped[i]));
    ASSERT_FLOAT_EQ(capped[i], std::tanh(plain[i] / 0.5f) * 0.5f) << i;
  }
  EXPECT_LE(max_abs, 0.5f);
  const std::string bad = copy(dir, base, "bad-cap", {{"gemma3.final_logit_softcapping", testing::f32_value(-1.0f)}});
  EXPECT_EQ(load_error(bad).first, code_string(codes::kInvalidModel));
}

TEST(Gemma3, AMissingPostNormIsInvalidModel) {
  TempDir dir;
  const std::string path = copy(dir, tiny_gemma3(dir, "g3"), "no-post", {}, {"blk.1.post_ffw_norm.weight"});
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("missing tensor blk.1.post_ffw_norm.weight"), std::string::npos) << msg;
}

TEST(Gemma3, ChunkedPrefillAndStreamingGiveBitwiseEqualLogits) {
  TempDir dir;
  const std::string path = tiny_gemma3(dir, "g3");
  const auto whole = logits(path);
  for (int chunk : {1, 7, 9}) EXPECT_TRUE(same_rows(whole, logits(path, chunk), 0, kTokens)) << chunk;
  EXPECT_TRUE(same_rows(whole, logits(path, 0, WeightsMode::Stream), 0, kTokens));
}

TEST(Gemma3, GegluFollowsTheFp16Table) {
  // Inside (-10, 10): gelu_tanh of x rounded to fp16, itself rounded to fp16; outside: 0 or x.
  std::vector<float> gate = {-12.0f, -10.0f, -1.0f, 0.0f, 0.5f, 3.0f, 10.0f, 11.0f};
  const std::vector<float> up(gate.size(), 2.0f);
  std::vector<float> g = gate;
  engine::geglu(g.data(), up.data(), 1, static_cast<int64_t>(g.size()));
  EXPECT_EQ(g[0], 0.0f);
  EXPECT_EQ(g[1], 0.0f);
  EXPECT_EQ(g[3], 0.0f);
  EXPECT_EQ(g[6], 20.0f);
  EXPECT_EQ(g[7], 22.0f);
  for (size_t i : {2u, 4u, 5u}) {
    const float x = gate[i];
    const float exact = 0.5f * x * (1.0f + std::tanh(0.7978845608f * x * (1.0f + 0.044715f * x * x)));
    EXPECT_NEAR(g[i] / 2.0f, exact, std::fabs(exact) * 2e-3f + 1e-4f) << x;  // fp16 rounding
  }
}

TEST(SoftmaxMasked, MaskedEntriesGetWeightZeroAndTakeNoPartInTheMaximum) {
  std::vector<float> a = {100.0f, 50.0f, 1.0f, 2.0f};
  engine::softmax_scaled(a.data(), 4, 1.0f, 2);
  EXPECT_EQ(a[0], 0.0f);
  EXPECT_EQ(a[1], 0.0f);
  std::vector<float> b = {1.0f, 2.0f};
  engine::softmax_scaled(b.data(), 2, 1.0f);
  EXPECT_EQ(a[2], b[0]);
  EXPECT_EQ(a[3], b[1]);
}

}  // namespace
}  // namespace a3s::power::gemma3_test

// What the graph consumes: every tensor of the file and every `<arch>.*` metadata key is used,
// informational, or refused with its name (unsupported_model_feature); Llama 3.1+ rope_freqs and
// the rope scaling keys change the logits as they should.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "load_error.h"
#include "support/gguf_builder.h"
#include "support/temp_dir.h"

namespace a3s::power::model_features_test {
namespace {

using testing::AddedTensor;
using testing::DerivedModel;
using testing::TempDir;

const std::string kModels = std::string(A3S_TESTDATA_DIR) + "/models/";

std::string derive(const TempDir& dir, DerivedModel d) {
  if (d.name.empty()) d.name = "derived";
  const std::string path = dir.file(d.name + ".gguf");
  testing::write_derived_model(kModels + d.base + ".gguf", d, path);
  return path;
}

using testing::load_error;

std::vector<float> logits(const std::string& path, WeightsMode weights = WeightsMode::Resident) {
  Context ctx(Model::load(path, {.n_threads = 1, .weights = weights}), {.n_ctx = 64});
  const std::vector<Token> tokens = {1, 403, 407, 10, 300, 12, 77, 5, 91, 200};
  const auto l = ctx.eval(tokens, /*all_logits=*/true);
  return {l.begin(), l.end()};
}

bool same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ModelFeatures, AnUnusedTensorIsRefusedByName) {
  TempDir dir;
  // A bias on the attention output: llama.cpp adds it, this graph has no such role.
  const std::string path =
      derive(dir, {.base = "tiny-llama-f32", .tensors = {{"blk.1.attn_output.bias", std::vector<float>(256, 0.5f)}}});
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("blk.1.attn_output.bias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("llama graph does not use"), std::string::npos) << msg;
  // Refused in streaming mode too (no weights read first).
  try {
    Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream});
    ADD_FAILURE() << "streamed load succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kUnsupportedModelFeature);
  }
}

TEST(ModelFeatures, RopeFreqsOnAnArchitectureWithoutThemIsRefused) {
  TempDir dir;
  auto [code, msg] = load_error(
      derive(dir, {.base = "tiny-qwen2-f32", .tensors = {{"rope_freqs.weight", testing::test_rope_freqs(16)}}}));
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("rope_freqs.weight"), std::string::npos) << msg;
}

TEST(ModelFeatures, AnUnsupportedRopeScalingTypeIsRefusedByName) {
  TempDir dir;
  for (const char* type : {"longrope", "llama3", "dynamic"}) {
    auto [code, msg] = load_error(
        derive(dir, {.base = "tiny-llama-f32", .keys = {{"llama.rope.scaling.type", testing::string_value(type)}}}));
    EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature)) << type;
    EXPECT_NE(msg.find(std::string("rope scaling \"") + type + "\""), std::string::npos) << msg;
  }
}

TEST(ModelFeatures, AnUnknownArchitectureKeyIsRefusedByName) {
  TempDir dir;
  for (const char* key : {"llama.attn_logit_softcapping", "llama.final_logit_softcapping",
                          "llama.attention.sliding_window", "llama.attention.scale", "llama.rope.scaling.yarn_log_multiplier"}) {
    auto [code, msg] = load_error(derive(dir, {.base = "tiny-llama-f32", .keys = {{key, testing::f32_value(30.0f)}}}));
    EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature)) << key;
    EXPECT_NE(msg.find(key), std::string::npos) << msg;
  }
}

TEST(ModelFeatures, ExpertCountsNeedTheirTensorsAndStayRefusedWhereNoGraphHasExperts) {
  TempDir dir;
  // llama reads experts (the Mixtral layout): the count alone is incomplete, and a dense file that
  // claims experts lacks their tensors.
  auto [code, msg] = load_error(derive(dir, {.base = "tiny-llama-f32", .keys = {{"llama.expert_count", testing::u32_value(8)}}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("llama.expert_used_count"), std::string::npos) << msg;
  std::tie(code, msg) = load_error(derive(dir, {.name = "claims", .base = "tiny-llama-f32",
                                                .keys = {{"llama.expert_count", testing::u32_value(8)},
                                                         {"llama.expert_used_count", testing::u32_value(2)}}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("missing tensor blk.0.ffn_gate_inp.weight"), std::string::npos) << msg;
  std::tie(code, msg) = load_error(derive(dir, {.name = "too-many", .base = "tiny-llama-f32",
                                                .keys = {{"llama.expert_count", testing::u32_value(2)},
                                                         {"llama.expert_used_count", testing::u32_value(3)}}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("llama.expert_used_count must be in 1..2"), std::string::npos) << msg;
  // qwen2 has no mixture-of-experts graph here.
  std::tie(code, msg) = load_error(derive(dir, {.name = "qwen2-moe", .base = "tiny-qwen2-f32",
                                                .keys = {{"qwen2.expert_count", testing::u32_value(8)}}}));
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("qwen2.expert_count"), std::string::npos) << msg;
  const std::string dense = derive(dir, {.name = "dense",
                                         .base = "tiny-llama-f32",
                                         .keys = {{"llama.expert_count", testing::u32_value(0)},
                                                  {"llama.expert_used_count", testing::u32_value(0)}}});
  EXPECT_TRUE(same(logits(dense), logits(kModels + "tiny-llama-f32.gguf")));
}

TEST(ModelFeatures, InformationalKeysChangeNothing) {
  TempDir dir;
  const std::string path = derive(dir, {.base = "tiny-llama-f32",
                                        .keys = {{"llama.vocab_size", testing::u32_value(512)},
                                                 {"llama.rope.scaling.finetuned", {gguf::ValueType::BOOL, true}},
                                                 {"llama.tensor_data_layout", testing::string_value("Meta AI original pth")}}});
  EXPECT_TRUE(same(logits(path), logits(kModels + "tiny-llama-f32.gguf")));
}

TEST(ModelFeatures, BadRopeFreqsAreInvalidModel) {
  TempDir dir;
  auto [code, msg] = load_error(derive(
      dir, {.name = "short", .base = "tiny-llama-f32", .tensors = {{"rope_freqs.weight", testing::test_rope_freqs(8)}}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("rope_freqs.weight"), std::string::npos) << msg;
  // 1e-38 is positive but would overflow the angles of later positions (inf → NaN logits).
  for (float bad : {0.0f, -2.0f, 1e-38f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    std::vector<float> f = testing::test_rope_freqs(16);
    f[3] = bad;
    auto [c, m] = load_error(derive(dir, {.name = "bad", .base = "tiny-llama-f32", .tensors = {{"rope_freqs.weight", f}}}));
    EXPECT_EQ(c, code_string(codes::kInvalidModel));
    EXPECT_NE(m.find("rope_freqs.weight"), std::string::npos) << m;
  }
}

TEST(ModelFeatures, RopeFreqsOfOneChangeNothingAndOthersChangeTheLogits) {
  TempDir dir;
  const auto plain = logits(kModels + "tiny-llama-f32.gguf");
  const std::string ones =
      derive(dir, {.name = "ones", .base = "tiny-llama-f32", .tensors = {{"rope_freqs.weight", std::vector<float>(16, 1.0f)}}});
  EXPECT_TRUE(same(logits(ones), plain));
  const std::string scaled = derive(
      dir, {.name = "scaled", .base = "tiny-llama-f32", .tensors = {{"rope_freqs.weight", testing::test_rope_freqs(16)}}});
  const auto resident = logits(scaled);
  EXPECT_FALSE(same(resident, plain));
  EXPECT_TRUE(same(logits(scaled, WeightsMode::Stream), resident));
}

// Without `rope.scaling.type`, a factor means linear scaling (as llama.cpp reads such files); an
// explicit "none" ignores the factor.
TEST(ModelFeatures, AScalingFactorWithoutATypeIsLinear) {
  TempDir dir;
  const auto linear = logits(derive(dir, {.name = "linear",
                                          .base = "tiny-llama-f32",
                                          .keys = {{"llama.rope.scaling.type", testing::string_value("linear")},
                                                   {"llama.rope.scaling.factor", testing::f32_value(4.0f)}}}));
  const auto untyped = logits(
      derive(dir, {.name = "untyped", .base = "tiny-llama-f32", .keys = {{"llama.rope.scaling.factor", testing::f32_value(4.0f)}}}));
  const auto old_key = logits(
      derive(dir, {.name = "old", .base = "tiny-llama-f32", .keys = {{"llama.rope.scale_linear", testing::f32_value(4.0f)}}}));
  const auto none = logits(derive(dir, {.name = "none",
                                        .base = "tiny-llama-f32",
                                        .keys = {{"llama.rope.scaling.type", testing::string_value("none")},
                                                 {"llama.rope.scaling.factor", testing::f32_value(4.0f)}}}));
  EXPECT_TRUE(same(untyped, linear));
  EXPECT_TRUE(same(old_key, linear));
  EXPECT_TRUE(same(none, logits(kModels + "tiny-llama-f32.gguf")));
  EXPECT_FALSE(same(linear, none));
}

TEST(ModelFeatures, BadScalingValuesAreInvalidModel) {
  TempDir dir;
  for (auto [key, value] : std::vector<std::pair<std::string, gguf::Value>>{
           {"llama.rope.scaling.factor", testing::f32_value(-1.0f)},
           {"llama.rope.scaling.attn_factor", testing::f32_value(0.0f)},
           {"llama.rope.scaling.type", testing::u32_value(1)},
           {"llama.rope.scaling.original_context_length", testing::f32_value(1.5f)}}) {
    auto [code, msg] = load_error(derive(dir, {.base = "tiny-llama-f32", .keys = {{key, value}}}));
    EXPECT_EQ(code, code_string(codes::kInvalidModel)) << key;
    EXPECT_NE(msg.find(key), std::string::npos) << msg;  // the key the file has, in full
  }
  auto [code, msg] = load_error(
      derive(dir, {.name = "old", .base = "tiny-llama-f32", .keys = {{"llama.rope.scale_linear", testing::f32_value(-1.0f)}}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("llama.rope.scale_linear is negative"), std::string::npos) << msg;
}

// Untrusted names in these errors are escaped and bounded like the GGUF reader's (\xNN, "..." when cut).
TEST(ModelFeatures, NamesInTheErrorsAreEscapedAndMarkedWhenCut) {
  TempDir dir;
  auto [code, msg] = load_error(derive(
      dir, {.name = "ctl", .base = "tiny-llama-f32", .tensors = {{"blk.0.\x1b[2J\x07x", std::vector<float>(4, 1.0f)}}}));
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("blk.0.\\x1b[2J\\x07x"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  auto [code2, msg2] = load_error(
      derive(dir, {.name = "long", .base = "tiny-llama-f32", .keys = {{"llama." + std::string(500, 'B'), testing::u32_value(1)}}}));
  EXPECT_EQ(code2, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg2.find("BBB..."), std::string::npos) << msg2;
  EXPECT_LT(msg2.size(), 300u) << msg2;
}

// llama.cpp applies Q/K/V biases when a llama file has them; so does the engine.
TEST(ModelFeatures, LlamaQkvBiasesAreApplied) {
  TempDir dir;
  DerivedModel d{.base = "tiny-llama-f32"};
  for (int il = 0; il < 3; ++il) {
    const std::string b = "blk." + std::to_string(il) + ".";
    d.tensors.push_back({b + "attn_q.bias", std::vector<float>(256, 0.25f)});
    d.tensors.push_back({b + "attn_k.bias", std::vector<float>(128, -0.25f)});
    d.tensors.push_back({b + "attn_v.bias", std::vector<float>(128, 0.5f)});
  }
  EXPECT_FALSE(same(logits(derive(dir, d)), logits(kModels + "tiny-llama-f32.gguf")));
}

}  // namespace
}  // namespace a3s::power::model_features_test

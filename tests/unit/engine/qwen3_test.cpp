// The qwen3 graph (arch.h): per-head RMSNorm of Q and K before RoPE, no QKV biases, a head size
// that may differ from n_embd / n_head. Parity with llama.cpp is in tests/integration/parity; here:
// the loader's checks, that the norms take effect per head, and that prefill chunking, batching and
// streaming keep the bits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "chunked_logits.h"
#include "load_error.h"
#include "support/gguf_builder.h"
#include "support/temp_dir.h"
#include "synth/model_shape.h"
#include "synth/synthesize.h"

namespace a3s::power::qwen3_test {
namespace {

using testing::DerivedModel;
using testing::TempDir;
using testing::load_error;

const std::string kModels = std::string(A3S_TESTDATA_DIR) + "/models/";

// tiny-qwen3-Q8_0 of support/gguf_builder.h (qwen3 on tiny-qwen2's weights), optionally changed.
std::string derive(const TempDir& dir, const std::string& name, void (*change)(DerivedModel&) = nullptr) {
  DerivedModel d = *testing::find_derived_model("tiny-qwen3-Q8_0");
  if (change) change(d);
  const std::string path = dir.file(name + ".gguf");
  testing::write_derived_model(kModels + d.base + ".gguf", d, path);
  return path;
}

// tiny-qwen3's vocabulary has 512 entries: tokens 1 + (37·i) mod 500.
std::vector<Token> tokens40() {
  std::vector<Token> t;
  for (int i = 0; i < 40; ++i) t.push_back(static_cast<Token>(1 + (i * 37) % 500));
  return t;
}

std::vector<float> logits(const std::string& path, size_t chunk = 0, WeightsMode weights = WeightsMode::Resident) {
  return testing::chunked_logits(path, tokens40(), chunk, weights);
}

bool same(const std::vector<float>& a, const std::vector<float>& b) { return testing::bitwise_same(a, b); }

TEST(Qwen3, LoadsAsQwen3WithTheHeadNorms) {
  TempDir dir;
  auto m = Model::load(derive(dir, "q3"), {.n_threads = 1});
  EXPECT_EQ(m->info().architecture, "qwen3");
}

TEST(Qwen3, AMissingHeadNormIsInvalidModel) {
  TempDir dir;
  const std::string path = derive(dir, "no-k-norm", [](DerivedModel& d) {
    std::erase_if(d.tensors, [](const testing::AddedTensor& t) { return t.name == "blk.1.attn_k_norm.weight"; });
  });
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("missing tensor blk.1.attn_k_norm.weight"), std::string::npos) << msg;
}

TEST(Qwen3, AHeadNormOfTheWrongSizeIsInvalidModel) {
  TempDir dir;
  const std::string path = derive(dir, "wide-q-norm", [](DerivedModel& d) {
    for (auto& t : d.tensors)
      if (t.name == "blk.0.attn_q_norm.weight") t.values.assign(64, 1.0f);  // head size is 32
  });
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("attn_q_norm"), std::string::npos) << msg;
}

TEST(Qwen3, QkvBiasesAreRefusedByName) {
  // Qwen3 has no QKV biases: a file with them is not computed as if they were absent.
  TempDir dir;
  const std::string path = derive(dir, "biased", [](DerivedModel& d) {
    std::erase_if(d.removed, [](const std::string& n) { return n == "blk.2.attn_v.bias"; });
  });
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("blk.2.attn_v.bias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("qwen3 graph does not use"), std::string::npos) << msg;
}

TEST(Qwen3, HeadNormsOnQwen2AreRefused) {
  TempDir dir;
  const std::string path = dir.file("qwen2-with-norms.gguf");
  testing::write_derived_model(kModels + "tiny-qwen2-Q8_0.gguf",
                               {.name = "q2", .base = "tiny-qwen2-Q8_0",
                                .tensors = {{"blk.0.attn_q_norm.weight", std::vector<float>(32, 1.0f)}}},
                               path);
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("attn_q_norm"), std::string::npos) << msg;
}

TEST(Qwen3, EachHeadNormWeightChangesTheLogits) {
  // Changing one weight of one head norm (K of the last block) changes the logits: the norm is
  // applied, with its weights, and to K as well as Q.
  TempDir dir;
  const auto base = logits(derive(dir, "q3"));
  const auto changed = logits(derive(dir, "q3-k", [](DerivedModel& d) {
    for (auto& t : d.tensors)
      if (t.name == "blk.2.attn_k_norm.weight") t.values[5] *= 2.0f;
  }));
  EXPECT_FALSE(same(base, changed));
  const auto changed_q = logits(derive(dir, "q3-q", [](DerivedModel& d) {
    for (auto& t : d.tensors)
      if (t.name == "blk.0.attn_q_norm.weight") t.values[31] *= 2.0f;
  }));
  EXPECT_FALSE(same(base, changed_q));
}

TEST(Qwen3, ChunkedPrefillAndStreamingGiveBitwiseEqualLogits) {
  TempDir dir;
  const std::string path = derive(dir, "q3");
  const auto whole = logits(path);
  for (size_t chunk : {1u, 7u, 11u}) EXPECT_TRUE(same(whole, logits(path, chunk))) << chunk;
  EXPECT_TRUE(same(whole, logits(path, 0, WeightsMode::Stream)));
}

TEST(Qwen3, TheTinyPresetHasAHeadSizeBeyondNEmbdOverNHead) {
  // qwen3-tiny: n_embd 128, 4 heads of 64 (Q is 256 wide), 2 KV heads. It loads, and its prefill in
  // chunks equals one batch.
  TempDir dir;
  synth::SynthOptions o;
  o.shape = synth::find_shape_preset("qwen3-tiny");
  o.type = synth::FileType::Q8_0;
  const std::string path = dir.file("qwen3-tiny.gguf");
  synth::synthesize(o, path, nullptr);
  auto m = Model::load(path, {.n_threads = 1});
  EXPECT_EQ(m->info().architecture, "qwen3");
  EXPECT_EQ(o.shape.head_size(), 64);
  EXPECT_NE(o.shape.head_size() * o.shape.n_head, o.shape.n_embd);
  EXPECT_TRUE(same(logits(path), logits(path, 7)));
}

}  // namespace
}  // namespace a3s::power::qwen3_test

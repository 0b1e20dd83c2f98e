// The phi3 graph (arch.h): Q, K and V fused into attn_qkv, gate and up fused into ffn_up, NEOX RoPE
// over part of each head, Q scaled before q·k. Parity with llama.cpp is in tests/integration/parity;
// here: the loader's checks, the sliding_window key llama.cpp reads and disables, and that prefill
// chunking and streaming keep the bits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "chunked_logits.h"
#include "load_error.h"
#include "model/gguf/gguf_file.h"
#include "support/gguf_builder.h"
#include "support/temp_dir.h"
#include "synth/model_shape.h"
#include "synth/synthesize.h"

namespace a3s::power::phi3_test {
namespace {

using testing::TempDir;
using testing::load_error;

std::string tiny_phi3(const TempDir& dir) {
  const std::string path = dir.file("phi3-tiny.gguf");
  synth::SynthOptions o;
  o.shape = synth::find_shape_preset("phi3-tiny");
  o.type = synth::FileType::Q8_0;
  synth::synthesize(o, path, nullptr);
  return path;
}

std::string copy(const TempDir& dir, const std::string& base, const std::string& name,
                 std::vector<std::pair<std::string, gguf::Value>> keys, std::vector<testing::AddedTensor> tensors = {},
                 std::vector<std::string> removed = {}) {
  const std::string path = dir.file(name + ".gguf");
  testing::write_model_copy(base, keys, tensors, removed, path);
  return path;
}

std::vector<float> logits(const std::string& path, int chunk = 0, WeightsMode weights = WeightsMode::Resident) {
  return testing::chunked_logits(path, testing::stride_tokens(40, 131), static_cast<size_t>(chunk), weights);
}

bool same(const std::vector<float>& a, const std::vector<float>& b) { return testing::bitwise_same(a, b); }

TEST(Phi3, TheTinyPresetHasFusedTensorsAndPartialRotary) {
  TempDir dir;
  const std::string path = tiny_phi3(dir);
  auto f = gguf::File::open(path);
  EXPECT_EQ(f->find_tensor("blk.0.attn_qkv.weight")->ne[1], 128 + 2 * 64);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_up.weight")->ne[1], 2 * 384);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.attn_q.weight"), nullptr);
  EXPECT_EQ(f->get_i64("phi3.rope.dimension_count").value_or(0), 24);
  EXPECT_EQ(Model::load(path, {.n_threads = 1})->info().architecture, "phi3");
}

TEST(Phi3, ChunkedPrefillAndStreamingGiveBitwiseEqualLogits) {
  TempDir dir;
  const std::string path = tiny_phi3(dir);
  const auto whole = logits(path);
  for (int chunk : {1, 7, 16}) EXPECT_TRUE(same(whole, logits(path, chunk))) << chunk;
  EXPECT_TRUE(same(whole, logits(path, 0, WeightsMode::Stream)));
}

TEST(Phi3, TheSlidingWindowKeyIsReadAndNotApplied) {
  // llama.cpp reads phi3.attention.sliding_window and disables it (attention over the whole
  // context); the same here: the logits are those of the file without the key. A bad value is
  // still an invalid model.
  TempDir dir;
  const std::string base = tiny_phi3(dir);
  const std::string windowed = copy(dir, base, "swa", {{"phi3.attention.sliding_window", testing::u32_value(8)}});
  EXPECT_TRUE(same(logits(base), logits(windowed)));
  const std::string bad = copy(dir, base, "swa-bad", {{"phi3.attention.sliding_window", testing::string_value("x")}});
  auto [code, msg] = load_error(bad);
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("sliding_window"), std::string::npos) << msg;
}

TEST(Phi3, AMissingQkvProjectionIsInvalidModel) {
  TempDir dir;
  const std::string path = copy(dir, tiny_phi3(dir), "no-qkv", {}, {}, {"blk.1.attn_qkv.weight"});
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("block 1 lacks its Q, K or V projection"), std::string::npos) << msg;
}

TEST(Phi3, AnFfnGateTensorIsRefusedByName) {
  // phi3 fuses gate and up: a separate ffn_gate would be ignored by the graph, so the load refuses it.
  TempDir dir;
  const std::string path =
      copy(dir, tiny_phi3(dir), "gate", {}, {{"blk.0.ffn_gate.weight", std::vector<float>(128, 1.0f)}});
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("blk.0.ffn_gate.weight"), std::string::npos) << msg;
  EXPECT_NE(msg.find("phi3 graph does not use"), std::string::npos) << msg;
}

TEST(Phi3, LongRopeFactorsAreRefusedByName) {
  // Phi-3 128k models carry LongRoPE factor tensors; until they are applied, the load refuses them.
  TempDir dir;
  const std::string path =
      copy(dir, tiny_phi3(dir), "longrope", {}, {{"rope_factors_long.weight", std::vector<float>(12, 1.0f)}});
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("rope_factors_long.weight"), std::string::npos) << msg;
}

}  // namespace
}  // namespace a3s::power::phi3_test

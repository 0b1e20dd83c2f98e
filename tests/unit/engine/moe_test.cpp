// Mixture of experts (qwen3moe; llama files with Mixtral-layout experts) on synth presets. Parity
// with llama.cpp is in tests/integration/parity, batch invariance and encryption with the other
// architectures; here: the loader's checks, that routing matters, that a streamed decode step reads
// the routed experts' planes and nothing else of the stacked tensors, and the memory plan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>
#include <filesystem>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "base/process_memory.h"
#include "chunked_logits.h"
#include "engine/hparams.h"
#include "engine/generator.h"
#include "engine/memory_plan.h"
#include "load_error.h"
#include "model/gguf/gguf_file.h"
#include "model/sources/weight_source.h"
#include "reference_model.h"
#include "support/gguf_builder.h"
#include "support/synth_models.h"
#include "support/temp_dir.h"

namespace a3s::power::moe_test {
namespace {

using testing::TempDir;
using testing::load_error;

std::string qwen3moe(const std::string& type = "Q8_0") { return testing::synth_preset_model("qwen3moe-tiny", type); }
std::string mixtral(const std::string& type = "Q8_0") { return testing::synth_preset_model("mixtral-tiny", type); }

std::vector<Token> tokens40() { return testing::stride_tokens(40, 37); }

// A copy of `base` with keys set, tensors removed or 1-D tensors added.
std::string changed(const TempDir& dir, const std::string& name, const std::string& base,
                    std::vector<std::pair<std::string, gguf::Value>> keys, std::vector<std::string> removed = {},
                    std::vector<testing::AddedTensor> added = {}) {
  const std::string path = dir.file(name + ".gguf");
  testing::write_model_copy(base, keys, added, removed, path);
  return path;
}

TEST(MixtureOfExperts, BothLayoutsLoadWithTheirExpertCounts) {
  auto q = Model::load(qwen3moe(), {.n_threads = 1});
  EXPECT_EQ(q->info().architecture, "qwen3moe");
  auto m = Model::load(mixtral(), {.n_threads = 1});
  EXPECT_EQ(m->info().architecture, "llama");
  for (const std::string& path : {qwen3moe(), mixtral()}) {
    const auto l = testing::chunked_logits(path, tokens40(), 0, WeightsMode::Resident);
    ASSERT_FALSE(l.empty());
    for (float v : l) ASSERT_TRUE(std::isfinite(v)) << path;
  }
}

TEST(MixtureOfExperts, TheMixtralLayoutMatchesTheFloatOracle) {
  // The naive double-precision model of reference_model.h, which routes each token on its own.
  const std::string path = mixtral("F32");
  testing::ReferenceModel ref(path);
  auto model = Model::load(path, {.n_threads = 2, .n_batch = 4});  // several prefill batches
  Context ctx(model, {.n_ctx = 64});
  const std::vector<Token> tokens = testing::stride_tokens(11, 389);
  const auto expect = ref.forward(std::vector<int>(tokens.begin(), tokens.end()));
  const auto got = ctx.eval(tokens, /*all_logits=*/true);
  const size_t n_vocab = static_cast<size_t>(ref.n_vocab());
  ASSERT_EQ(got.size(), tokens.size() * n_vocab);
  for (size_t r = 0; r < tokens.size(); ++r) {
    double num = 0, den = 0;
    for (size_t i = 0; i < n_vocab; ++i) {
      const double d = got[r * n_vocab + i] - expect[r][i];
      num += d * d;
      den += static_cast<double>(expect[r][i]) * expect[r][i];
    }
    EXPECT_LT(std::sqrt(num / den), 2e-3) << "row " << r;
  }
}

TEST(MixtureOfExperts, RoutingMattersEveryUsedExpertCounts) {
  // With one expert used instead of two, the same weights give other logits: the second expert's
  // share is part of the output.
  TempDir dir;
  const std::string one = changed(dir, "one", qwen3moe(), {{"qwen3moe.expert_used_count", testing::u32_value(1)}});
  const auto a = testing::chunked_logits(qwen3moe(), tokens40(), 0, WeightsMode::Resident);
  const auto b = testing::chunked_logits(one, tokens40(), 0, WeightsMode::Resident);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_FALSE(testing::bitwise_same(a, b));
}

TEST(MixtureOfExperts, BadExpertMetadataIsRefusedByName) {
  TempDir dir;
  struct Case {
    const char* name;
    std::vector<std::pair<std::string, gguf::Value>> keys;
    std::string code, says;
  };
  const std::vector<Case> cases = {
      {"used-above-count", {{"qwen3moe.expert_used_count", testing::u32_value(9)}}, code_string(codes::kInvalidModel),
       "qwen3moe.expert_used_count must be in 1..8"},
      {"used-zero", {{"qwen3moe.expert_used_count", testing::u32_value(0)}}, code_string(codes::kInvalidModel),
       "qwen3moe.expert_used_count must be in 1..8"},
      {"count-not-int", {{"qwen3moe.expert_count", testing::string_value("eight")}}, code_string(codes::kInvalidModel),
       "qwen3moe.expert_count"},
      {"count-zero", {{"qwen3moe.expert_count", testing::u32_value(0)}}, code_string(codes::kInvalidModel),
       "qwen3moe.expert_count out of range"},
      {"count-differs", {{"qwen3moe.expert_count", testing::u32_value(4)}}, code_string(codes::kInvalidModel),
       "blk.0.ffn_gate_inp.weight has shape"},
      {"ff-differs", {{"qwen3moe.expert_feed_forward_length", testing::u32_value(64)}},
       code_string(codes::kInvalidModel), "blk.0.ffn_gate_exps.weight has shape"},
      // Keys of expert features this graph does not compute (shared experts, other gating, scaled weights).
      {"shared", {{"qwen3moe.expert_shared_feed_forward_length", testing::u32_value(64)}},
       code_string(codes::kUnsupportedModelFeature), "qwen3moe.expert_shared_feed_forward_length"},
      {"gating", {{"qwen3moe.expert_gating_func", testing::u32_value(2)}}, code_string(codes::kUnsupportedModelFeature),
       "qwen3moe.expert_gating_func"},
      {"scale", {{"qwen3moe.expert_weights_scale", testing::f32_value(2.5f)}},
       code_string(codes::kUnsupportedModelFeature), "qwen3moe.expert_weights_scale"},
  };
  for (const Case& c : cases) {
    auto [code, msg] = load_error(changed(dir, c.name, qwen3moe(), c.keys));
    EXPECT_EQ(code, c.code) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.name << ": " << msg;
  }
}

TEST(MixtureOfExperts, MissingOrExtraFfnTensorsAreRefusedByName) {
  TempDir dir;
  auto [code, msg] = load_error(changed(dir, "no-up", qwen3moe(), {}, {"blk.1.ffn_up_exps.weight"}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("missing tensor blk.1.ffn_up_exps.weight"), std::string::npos) << msg;
  std::tie(code, msg) = load_error(changed(dir, "no-router", mixtral(), {}, {"blk.0.ffn_gate_inp.weight"}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("missing tensor blk.0.ffn_gate_inp.weight"), std::string::npos) << msg;
  // A dense FFN tensor beside the experts is not read by the graph: refused, not ignored.
  std::tie(code, msg) =
      load_error(changed(dir, "dense-too", qwen3moe(), {}, {}, {{"blk.0.ffn_gate.weight", std::vector<float>(128, 0.5f)}}));
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("blk.0.ffn_gate.weight"), std::string::npos) << msg;
  // Experts on a llama file that says it has none.
  std::tie(code, msg) = load_error(changed(dir, "no-count", mixtral(),
                                           {{"llama.expert_count", testing::u32_value(0)},
                                            {"llama.expert_used_count", testing::u32_value(0)}}));
  EXPECT_EQ(code, code_string(codes::kInvalidModel));
  EXPECT_NE(msg.find("has expert tensors (blk.0.ffn_gate_inp.weight) but llama.expert_count is 0"), std::string::npos)
      << msg;
  // The older Mixtral layout, one tensor per expert, is named as such.
  std::tie(code, msg) = load_error(
      changed(dir, "per-expert", mixtral(), {}, {}, {{"blk.0.ffn_gate.0.weight", std::vector<float>(128, 0.5f)}}));
  EXPECT_EQ(code, code_string(codes::kUnsupportedModelFeature));
  EXPECT_NE(msg.find("one tensor per expert"), std::string::npos) << msg;
}

TEST(MixtureOfExperts, ASingleExpertIsAPlainFfnInEveryMode) {
  // One expert, used by every token: the stacked tensors have a last dimension of 1 ([n_embd, n_ff, 1]).
  TempDir dir;
  synth::SynthOptions o;
  o.shape = synth::find_shape_preset("qwen3moe-tiny");
  o.shape.n_expert = 1;
  o.shape.n_expert_used = 1;
  o.type = synth::FileType::Q8_0;
  const std::string path = dir.file("one-expert.gguf");
  synth::synthesize(o, path);
  const auto a = testing::chunked_logits(path, tokens40(), 0, WeightsMode::Resident);
  const auto b = testing::chunked_logits(path, tokens40(), 7, WeightsMode::Stream);
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(testing::bitwise_same(a, b));
}

// What one decode step can read of a model file, by kind of tensor.
struct FileBytes {
  uint64_t file = 0, dense_blocks = 0, planes_per_layer = 0, globals = 0, first_block_tensor = 0;
  int n_layer = 0;
};

FileBytes file_bytes(const std::string& path) {
  auto f = gguf::File::open(path);
  FileBytes b;
  b.file = std::filesystem::file_size(path);
  for (const weights::TensorDesc& d : weights::tensor_descs(*f)) {
    if (d.layer < 0) {
      b.globals += d.name == "token_embd.weight" ? d.row_bytes : d.size_bytes;  // one embedding row per token
    } else if (d.stacked()) {
      if (d.layer == 0) b.planes_per_layer += d.plane_bytes();
    } else {
      b.dense_blocks += d.size_bytes;
    }
    if (d.name == "blk.0.attn_norm.weight") b.first_block_tensor = d.size_bytes;
    b.n_layer = std::max(b.n_layer, d.layer + 1);
  }
  return b;
}

TEST(MixtureOfExperts, AStreamedDecodeStepReadsOnlyTheRoutedExperts) {
  for (const std::string& path : {qwen3moe(), mixtral()}) {
    auto m = Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream});
    ASSERT_EQ(m->info().weights, WeightsMode::Stream);
    const FileBytes b = file_bytes(path);
    auto info = gguf::File::open(path);
    const std::string arch = *info->get_string("general.architecture");
    const uint64_t k = static_cast<uint64_t>(*info->get_i64(arch + ".expert_used_count"));
    Context ctx(m, {.n_ctx = 64});
    const std::vector<Token> prompt = {1, 229, 153, 132};
    ctx.eval(prompt);
    const uint64_t before = m->weight_bytes_read();
    const Token next = 300;
    ctx.eval(std::span<const Token>(&next, 1));
    const uint64_t step = m->weight_bytes_read() - before;
    // Every dense block tensor, the head and one embedding row, and per layer the planes of exactly
    // k experts (one token routes to k distinct experts). The source prefetches the first block
    // tensor of the next pass (blk.0.attn_norm) at the end of each pass, and that read may finish
    // on either side of a measurement.
    const uint64_t expect = b.dense_blocks + b.globals + static_cast<uint64_t>(b.n_layer) * k * b.planes_per_layer;
    EXPECT_LE(step, expect + b.first_block_tensor) << path;
    EXPECT_GE(step + b.first_block_tensor, expect) << path;
    EXPECT_LT(step, b.file) << path;
    // ModelInfo::decode_bytes (the decode ceiling of `bench --membw`) counts the same bytes.
    EXPECT_EQ(m->info().decode_bytes, expect) << path;
  }
}

TEST(MixtureOfExperts, StreamedAndResidentGiveTheSameBits) {
  for (const std::string& path : {qwen3moe(), mixtral("Q4_K_M")}) {
    const auto a = testing::chunked_logits(path, tokens40(), 0, WeightsMode::Resident);
    const auto b = testing::chunked_logits(path, tokens40(), 7, WeightsMode::Stream);
    EXPECT_TRUE(testing::bitwise_same(a, b)) << path;
  }
}

TEST(MixtureOfExperts, TheStreamPlanHoldsOneExpertPlaneNotTheStackedTensors) {
  const std::string path = qwen3moe("F32");
  auto f = gguf::File::open(path);
  const auto descs = weights::tensor_descs(*f);
  int output = -1, embd = -1;
  uint64_t largest_dense = 0, largest_plane = 0;
  for (size_t i = 0; i < descs.size(); ++i) {
    const weights::TensorDesc& d = descs[i];
    if (d.name == "output.weight") output = static_cast<int>(i);
    if (d.name == "token_embd.weight") embd = static_cast<int>(i);
    if (d.layer < 0) continue;
    if (d.stacked()) {
      largest_plane = std::max(largest_plane, d.plane_bytes());
    } else {
      largest_dense = std::max(largest_dense, d.size_bytes);
    }
  }
  ASSERT_GE(output, 0);
  ASSERT_GE(embd, 0);
  ASSERT_GT(largest_plane, 0u);
  engine::HParams hp;
  hp.n_vocab = static_cast<int>(descs[static_cast<size_t>(embd)].ne[1]);
  hp.n_embd = 128;
  hp.n_layer = 2;
  hp.n_ff = 384;
  hp.n_head = 4;
  hp.n_head_kv = 2;
  hp.head_dim = 64;
  hp.n_expert = 8;
  hp.n_expert_used = 2;
  hp.n_ff_exp = 128;
  ModelOptions opts;
  opts.weights = WeightsMode::Stream;
  const engine::MemoryPlan p = engine::plan_memory(hp, descs, output, embd, opts, 1, 0);
  const weights::TensorDesc& out = descs[static_cast<size_t>(output)];
  EXPECT_EQ(p.weight_bytes, 2 * largest_dense + largest_plane +
                                out.row_bytes * static_cast<uint64_t>(std::min<int64_t>(engine::kHeadChunkRows, out.n_rows())) +
                                descs[static_cast<size_t>(embd)].row_bytes);
  uint64_t all = 0;
  for (const weights::TensorDesc& d : descs) all += d.size_bytes;
  EXPECT_LT(p.weight_bytes, all);
  // A budget that fits streaming runs generation in it (the budget counts the process's memory
  // before loading too).
  const uint64_t budget = current_rss_bytes() + (64ull << 20);
  auto m = Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream, .memory_budget = budget});
  EXPECT_EQ(m->info().weights, WeightsMode::Stream);
  Context ctx(m, {.n_ctx = 32});
  GenerationRequest req;
  req.prompt = {1, 229, 153};
  req.max_tokens = 8;
  req.sampling.temperature = 0.0f;
  EXPECT_EQ(generate(ctx, req).tokens.size(), 8u);
}

}  // namespace
}  // namespace a3s::power::moe_test

// Synthetic models of every file type load in the engine, have the declared shape and mix, and
// evaluate to finite logits; the vocabulary is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "support/gguf_builder.h"
#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "synth/synthesize.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::synth {
namespace {

using testing::TempDir;

ModelShape small_shape(const std::string& arch = "llama") {
  ModelShape s;
  s.arch = arch;
  s.n_embd = 256;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.n_ff = 512;
  s.n_vocab = 300;
  return s;
}

class EveryFileType : public ::testing::TestWithParam<FileType> {};

TEST_P(EveryFileType, LoadsWithTheShapeAndEvaluates) {
  TempDir dir;
  SynthOptions o;
  o.shape = small_shape();
  o.type = GetParam();
  o.n_threads = 2;
  const std::string path = dir.file("m.gguf");
  const SynthResult r = synthesize(o, path);
  EXPECT_EQ(r.file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(r.n_vocab, 300);

  auto f = gguf::File::open(path);
  EXPECT_EQ(f->get_u64("general.file_type"), file_type_id(o.type));
  EXPECT_EQ(f->tensors().front().name, "token_embd.weight");
  EXPECT_EQ(f->tensors().back().name, "output.weight");
  uint64_t n_elements = 0;
  for (const auto& t : f->tensors()) n_elements += static_cast<uint64_t>(t.n_elements());
  EXPECT_EQ(n_elements, o.shape.n_params());
  EXPECT_EQ(f->find_tensor("blk.0.attn_norm.weight")->type, TensorType::F32);

  auto model = Model::load(path, {.n_threads = 2});
  EXPECT_EQ(model->info().n_embd, 256);
  EXPECT_EQ(model->info().n_layer, 2);
  EXPECT_EQ(model->info().n_head_kv, 2);
  EXPECT_EQ(model->info().n_vocab, 300);
  Context ctx(model, {.n_ctx = 16});
  const std::vector<Token> tokens = model->tokenizer().encode("synthetic text", true, false);
  ASSERT_GE(tokens.size(), 2u);
  EXPECT_EQ(tokens[0], 1);
  const std::span<const float> logits = ctx.eval(tokens);
  ASSERT_EQ(logits.size(), 300u);
  for (float v : logits) ASSERT_TRUE(std::isfinite(v));
  EXPECT_EQ(model->tokenizer().decode(tokens), " synthetic text") << "SentencePiece adds a space prefix";
}

INSTANTIATE_TEST_SUITE_P(All, EveryFileType,
                         ::testing::Values(FileType::F32, FileType::F16, FileType::BF16, FileType::Q4_0,
                                           FileType::Q4_1, FileType::Q5_0, FileType::Q5_1, FileType::Q8_0,
                                           FileType::Q2_K, FileType::Q3_K_S, FileType::Q3_K_M, FileType::Q4_K_S,
                                           FileType::Q4_K_M, FileType::Q5_K_S, FileType::Q5_K_M, FileType::Q6_K),
                         [](const auto& info) { return file_type_name(info.param); });

TEST(Synthesize, Qwen2HasBiasesAndTiedEmbeddings) {
  TempDir dir;
  SynthOptions o;
  o.shape = small_shape("qwen2");
  o.shape.tied_embeddings = true;
  o.type = FileType::Q4_K_M;
  synthesize(o, dir.file("q.gguf"));
  auto f = gguf::File::open(dir.file("q.gguf"));
  EXPECT_EQ(f->find_tensor("output.weight"), nullptr);
  ASSERT_NE(f->find_tensor("blk.1.attn_k.bias"), nullptr);
  EXPECT_EQ(f->find_tensor("token_embd.weight")->type, TensorType::Q6_K) << "a tied head gets the head's type";
  auto model = Model::load(dir.file("q.gguf"), {.n_threads = 1});
  EXPECT_EQ(model->info().architecture, "qwen2");
}

TEST(Synthesize, Qwen3HasHeadNormsAndItsOwnHeadSize) {
  // n_embd 256, 4 heads of 96: Q is 384 wide, K/V 192; the head size is written as key/value length.
  TempDir dir;
  SynthOptions o;
  o.shape = small_shape("qwen3");
  o.shape.head_dim = 96;
  o.type = FileType::Q8_0;
  synthesize(o, dir.file("q.gguf"));
  auto f = gguf::File::open(dir.file("q.gguf"));
  ASSERT_NE(f->find_tensor("blk.1.attn_q_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.attn_k_norm.weight")->ne[0], 96);
  EXPECT_EQ(f->find_tensor("blk.0.attn_q.weight")->ne[1], 384);
  EXPECT_EQ(f->find_tensor("blk.0.attn_k.weight")->ne[1], 192);
  EXPECT_EQ(f->find_tensor("blk.0.attn_output.weight")->ne[0], 384);
  EXPECT_EQ(f->find_tensor("blk.0.attn_q.bias"), nullptr);
  EXPECT_EQ(f->get_i64("qwen3.attention.key_length").value_or(0), 96);
  EXPECT_EQ(f->get_i64("qwen3.rope.dimension_count").value_or(0), 96);
  uint64_t weights = 0;
  for (const auto& t : f->tensors()) {
    uint64_t n = 1;
    for (uint32_t d = 0; d < t.n_dims; ++d) n *= static_cast<uint64_t>(t.ne[d]);
    weights += n;
  }
  EXPECT_EQ(weights, o.shape.n_params());
  auto model = Model::load(dir.file("q.gguf"), {.n_threads = 1});
  EXPECT_EQ(model->info().architecture, "qwen3");
  Context ctx(model, {.n_ctx = 16});
  for (float v : ctx.eval(std::vector<Token>{1, 2, 3}, false)) ASSERT_TRUE(std::isfinite(v));
}

uint64_t n_weights(const gguf::File& f) {
  uint64_t n = 0;
  for (const auto& t : f.tensors()) n += static_cast<uint64_t>(t.n_elements());
  return n;
}

void expect_ne(const gguf::TensorInfo* t, std::vector<int64_t> ne, const std::string& name) {
  ASSERT_NE(t, nullptr) << name;
  ASSERT_EQ(t->n_dims, ne.size()) << name;
  for (size_t d = 0; d < ne.size(); ++d) EXPECT_EQ(t->ne[d], ne[d]) << name << " ne[" << d << "]";
}

// qwen3moe (Qwen3-MoE's llama.cpp layout): per block a router {n_embd, n_expert} and 3-D expert tensors,
// no dense FFN; the router F32 in every file type.
TEST(Synthesize, Qwen3MoeHasARouterAndExpertTensors) {
  struct Case {
    FileType type;
    int n_embd;
    TensorType gate_up, down0, down1, attn_k, attn_output;
  };
  // 8 experts: llama-quant's Mixtral rule gives attn_k / attn_v Q8_0 and attn_output Q5_K in Q4_K_M and
  // IQ4_XS. ffn_down_exps rows of 128 fall back (Q4_K→Q5_0; layer 1 of 2 gets more bits: Q6_K→Q8_0).
  const Case cases[] = {
      {FileType::F32, 128, TensorType::F32, TensorType::F32, TensorType::F32, TensorType::F32, TensorType::F32},
      {FileType::F16, 128, TensorType::F16, TensorType::F16, TensorType::F16, TensorType::F16, TensorType::F16},
      {FileType::Q8_0, 128, TensorType::Q8_0, TensorType::Q8_0, TensorType::Q8_0, TensorType::Q8_0,
       TensorType::Q8_0},
      {FileType::Q4_K_M, 256, TensorType::Q4_K, TensorType::Q5_0, TensorType::Q8_0, TensorType::Q8_0,
       TensorType::Q5_K},
      {FileType::IQ4_XS, 256, TensorType::IQ4_XS, TensorType::IQ4_NL, TensorType::IQ4_NL, TensorType::Q8_0,
       TensorType::Q5_K},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(file_type_name(c.type));
    TempDir dir;
    SynthOptions o;
    o.shape = find_shape_preset("qwen3moe-tiny");
    o.shape.n_embd = c.n_embd;
    o.type = c.type;
    o.n_threads = 2;
    synthesize(o, dir.file("m.gguf"));
    auto f = gguf::File::open(dir.file("m.gguf"));
    const int64_t e = c.n_embd;
    EXPECT_EQ(f->get_string("general.architecture"), "qwen3moe");
    EXPECT_EQ(f->get_i64("qwen3moe.expert_count").value_or(0), 8);
    EXPECT_EQ(f->get_i64("qwen3moe.expert_used_count").value_or(0), 2);
    EXPECT_EQ(f->get_i64("qwen3moe.expert_feed_forward_length").value_or(0), 128);
    EXPECT_EQ(f->get_i64("qwen3moe.feed_forward_length").value_or(0), 384);
    EXPECT_EQ(f->get_i64("qwen3moe.attention.key_length").value_or(0), 64);
    EXPECT_EQ(f->get_i64("qwen3moe.rope.dimension_count").value_or(0), 64);
    EXPECT_NEAR(f->get_f64("qwen3moe.rope.freq_base").value_or(0), 1e6, 1e-3);
    ASSERT_NE(f->find_tensor("output.weight"), nullptr) << "untied";
    for (int il = 0; il < 2; ++il) {
      const std::string p = "blk." + std::to_string(il) + ".";
      for (const char* dense : {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"})
        EXPECT_EQ(f->find_tensor(p + dense), nullptr) << p + dense;
      expect_ne(f->find_tensor(p + "attn_q_norm.weight"), {64}, p + "attn_q_norm.weight");
      expect_ne(f->find_tensor(p + "attn_k_norm.weight"), {64}, p + "attn_k_norm.weight");
      expect_ne(f->find_tensor(p + "attn_q.weight"), {e, 256}, p + "attn_q.weight");
      expect_ne(f->find_tensor(p + "attn_output.weight"), {256, e}, p + "attn_output.weight");
      expect_ne(f->find_tensor(p + "ffn_norm.weight"), {e}, p + "ffn_norm.weight");
      expect_ne(f->find_tensor(p + "ffn_gate_inp.weight"), {e, 8}, p + "ffn_gate_inp.weight");
      expect_ne(f->find_tensor(p + "ffn_gate_exps.weight"), {e, 128, 8}, p + "ffn_gate_exps.weight");
      expect_ne(f->find_tensor(p + "ffn_up_exps.weight"), {e, 128, 8}, p + "ffn_up_exps.weight");
      expect_ne(f->find_tensor(p + "ffn_down_exps.weight"), {128, e, 8}, p + "ffn_down_exps.weight");
      EXPECT_EQ(f->find_tensor(p + "ffn_gate_inp.weight")->type, TensorType::F32) << "the router is never quantized";
      EXPECT_EQ(f->find_tensor(p + "ffn_gate_exps.weight")->type, c.gate_up);
      EXPECT_EQ(f->find_tensor(p + "ffn_up_exps.weight")->type, c.gate_up);
      EXPECT_EQ(f->find_tensor(p + "ffn_down_exps.weight")->type, il == 0 ? c.down0 : c.down1);
      EXPECT_EQ(f->find_tensor(p + "attn_k.weight")->type, c.attn_k);
      EXPECT_EQ(f->find_tensor(p + "attn_v.weight")->type, c.attn_k);
      EXPECT_EQ(f->find_tensor(p + "attn_output.weight")->type, c.attn_output);
      EXPECT_EQ(f->find_tensor(p + "ffn_norm.weight")->type, TensorType::F32);
    }
    EXPECT_EQ(n_weights(*f), o.shape.n_params());
  }
}

TEST(Synthesize, EveryRowOfAnExpertTensorIsFilled) {
  // F32: the last row of the last expert is written (rows run over ne[1] * ne[2]) and is a weight row
  // (within ±sqrt(3 / ne[0]), not all equal); the router is a matrix of such rows, not a norm of ones.
  TempDir dir;
  SynthOptions o;
  o.shape = find_shape_preset("qwen3moe-tiny");
  o.type = FileType::F32;
  synthesize(o, dir.file("m.gguf"));
  auto f = gguf::File::open(dir.file("m.gguf"));
  for (const char* name : {"blk.1.ffn_down_exps.weight", "blk.1.ffn_gate_exps.weight", "blk.0.ffn_gate_inp.weight"}) {
    SCOPED_TRACE(name);
    const gguf::TensorInfo* t = f->find_tensor(name);
    ASSERT_NE(t, nullptr);
    const int64_t n = t->ne[0], rows = t->n_elements() / n;
    const float* x = reinterpret_cast<const float*>(f->tensor_data(*t));
    const float bound = std::sqrt(3.0f / static_cast<float>(n));
    for (int64_t r : {int64_t{0}, rows / 2, rows - 1}) {
      float lo = 1e9f, hi = -1e9f;
      for (int64_t i = 0; i < n; ++i) {
        lo = std::min(lo, x[r * n + i]);
        hi = std::max(hi, x[r * n + i]);
      }
      EXPECT_GE(lo, -bound) << "row " << r;
      EXPECT_LE(hi, bound) << "row " << r;
      EXPECT_GT(hi - lo, bound) << "row " << r << " looks constant";
    }
    EXPECT_NE(x[0], x[(rows - 1) * n]) << "rows differ";
  }
  // The same bytes whatever the thread count (each row has its own generator).
  o.type = FileType::Q4_K_M;
  o.shape.n_embd = 256;
  o.n_threads = 1;
  synthesize(o, dir.file("a.gguf"));
  o.n_threads = 2;
  synthesize(o, dir.file("b.gguf"));
  EXPECT_EQ(testing::read_bytes(dir.file("a.gguf")), testing::read_bytes(dir.file("b.gguf")));
}

TEST(Synthesize, MixtralLayoutOnLlama) {
  TempDir dir;
  SynthOptions o;
  o.shape = find_shape_preset("mixtral-tiny");
  o.type = FileType::Q8_0;
  synthesize(o, dir.file("m.gguf"));
  auto f = gguf::File::open(dir.file("m.gguf"));
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_i64("llama.expert_count").value_or(0), 4);
  EXPECT_EQ(f->get_i64("llama.expert_used_count").value_or(0), 2);
  EXPECT_FALSE(f->has("llama.expert_feed_forward_length")) << "llama's experts are n_ff wide";
  EXPECT_EQ(f->get_i64("llama.feed_forward_length").value_or(0), 256);
  for (int il = 0; il < 2; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    for (const char* dense : {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"})
      EXPECT_EQ(f->find_tensor(p + dense), nullptr) << p + dense;
    EXPECT_EQ(f->find_tensor(p + "attn_q_norm.weight"), nullptr);
    expect_ne(f->find_tensor(p + "ffn_gate_inp.weight"), {128, 4}, p + "ffn_gate_inp.weight");
    expect_ne(f->find_tensor(p + "ffn_gate_exps.weight"), {128, 256, 4}, p + "ffn_gate_exps.weight");
    expect_ne(f->find_tensor(p + "ffn_up_exps.weight"), {128, 256, 4}, p + "ffn_up_exps.weight");
    expect_ne(f->find_tensor(p + "ffn_down_exps.weight"), {256, 128, 4}, p + "ffn_down_exps.weight");
    EXPECT_EQ(f->find_tensor(p + "ffn_gate_inp.weight")->type, TensorType::F32);
    EXPECT_EQ(f->find_tensor(p + "ffn_down_exps.weight")->type, TensorType::Q8_0);
  }
  EXPECT_EQ(n_weights(*f), o.shape.n_params());
}

TEST(Synthesize, BadExpertShapeLeavesNoFile) {
  TempDir dir;
  SynthOptions o;
  o.shape = find_shape_preset("qwen3moe-tiny");
  o.shape.n_expert_used = 9;
  try {
    synthesize(o, dir.file("out.gguf"));
    FAIL() << "expected invalid_argument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("n_expert_used"), std::string::npos) << e.what();
  }
  o.shape = find_shape_preset("phi3-tiny");
  o.shape.n_expert = 4;
  o.shape.n_expert_used = 2;
  EXPECT_THROW(synthesize(o, dir.file("out.gguf")), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf.tmp")));
}

TEST(Synthesize, ProgressReachesTheDataSize) {
  TempDir dir;
  SynthOptions o;
  o.shape = small_shape();
  o.type = FileType::Q8_0;
  uint64_t last = 0, total = 0;
  int calls = 0;
  synthesize(o, dir.file("p.gguf"), [&](uint64_t done, uint64_t all) {
    EXPECT_GE(done, last);
    last = done;
    total = all;
    ++calls;
  });
  EXPECT_EQ(last, total);
  EXPECT_GT(calls, 10);
}

TEST(Synthesize, BadVocabularySourceLeavesNoFile) {
  TempDir dir;
  SynthOptions o;
  o.shape = small_shape();
  testing::write_bytes(dir.file("junk.gguf"), {'G', 'G', 'U', 'F', 3, 0});
  o.vocab_from = dir.file("junk.gguf");
  EXPECT_THROW(synthesize(o, dir.file("out.gguf")), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf.tmp")));
  o.vocab_from.reset();
  o.shape.n_vocab = 100;  // below the 259 a byte-fallback vocabulary needs
  EXPECT_THROW(synthesize(o, dir.file("out.gguf")), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.gguf")));
}

}  // namespace
}  // namespace a3s::power::synth

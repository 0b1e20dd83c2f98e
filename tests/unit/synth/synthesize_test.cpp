// Synthetic models of every file type load in the engine, have the declared shape and mix, and
// evaluate to finite logits; the vocabulary is usable.
#include <gtest/gtest.h>

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

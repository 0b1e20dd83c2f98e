// The GGUF reader on the real models and vocabularies in the shared test data.
#include "model/gguf/gguf_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power::gguf {
namespace {

namespace fs = std::filesystem;

std::string testdata(const std::string& rel) {
  return std::string(A3S_TESTDATA_DIR) + "/" + rel;
}

std::vector<std::string> gguf_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(testdata(dir))) {
    if (e.path().extension() == ".gguf") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GgufFile, Stories260KHyperParameters) {
  auto f = File::open(testdata("models/stories260K.gguf"));
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->alignment(), 32u);
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_u64("llama.block_count"), 5u);
  EXPECT_EQ(f->get_u64("llama.embedding_length"), 64u);
  EXPECT_EQ(f->get_u64("llama.attention.head_count"), 8u);
  EXPECT_EQ(f->get_u64("llama.attention.head_count_kv"), 4u);
  EXPECT_EQ(f->get_u64("llama.feed_forward_length"), 172u);
  EXPECT_EQ(f->get_u64("llama.context_length"), 2048u);
  EXPECT_EQ(f->get_i64("llama.block_count"), 5);
  EXPECT_EQ(f->get_string("tokenizer.ggml.model"), "llama");
  auto tokens = f->get_string_array("tokenizer.ggml.tokens");
  ASSERT_TRUE(tokens.has_value());
  EXPECT_EQ(tokens->size(), 512u);
  auto scores = f->get_f64_array("tokenizer.ggml.scores");
  ASSERT_TRUE(scores.has_value());
  EXPECT_EQ(scores->size(), 512u);
  auto types = f->get_i64_array("tokenizer.ggml.token_type");
  ASSERT_TRUE(types.has_value());
  EXPECT_EQ(types->size(), 512u);
  EXPECT_FALSE(f->has("tokenizer.chat_template"));
  EXPECT_EQ(f->get_string("no.such.key"), std::nullopt);
  // keys() lists every key once, in file order (this file starts with the vocabulary).
  EXPECT_EQ(f->keys().front(), "tokenizer.ggml.tokens");
  EXPECT_EQ(std::count(f->keys().begin(), f->keys().end(), "general.architecture"), 1);
}

TEST(GgufFile, Stories260KTensors) {
  auto f = File::open(testdata("models/stories260K.gguf"));
  const TensorInfo* emb = f->find_tensor("token_embd.weight");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(emb->type, TensorType::F32);
  EXPECT_EQ(emb->n_dims, 2u);
  EXPECT_EQ(emb->ne[0], 64);
  EXPECT_EQ(emb->ne[1], 512);
  EXPECT_EQ(emb->size_bytes, 64u * 512u * 4u);
  EXPECT_EQ(emb->file_offset, f->data_offset() + emb->offset);
  EXPECT_EQ(f->data_offset() % f->alignment(), 0u);
  for (int l = 0; l < 5; ++l) {
    EXPECT_NE(f->find_tensor("blk." + std::to_string(l) + ".attn_q.weight"), nullptr) << l;
  }
  EXPECT_EQ(f->find_tensor("blk.5.attn_q.weight"), nullptr);
  const TensorInfo* wk = f->find_tensor("blk.0.attn_k.weight");
  ASSERT_NE(wk, nullptr);
  EXPECT_EQ(wk->ne[0], 64);
  EXPECT_EQ(wk->ne[1], 32);  // 4 KV heads x head_dim 8
  // Tensor bytes lie inside the file and the first embedding value is a finite float.
  uint64_t total = 0;
  for (const auto& t : f->tensors()) {
    EXPECT_LE(t.file_offset + t.size_bytes, f->bytes().size()) << t.name;
    total += t.size_bytes;
  }
  EXPECT_GT(total, 200000u);
  float first;
  std::memcpy(&first, f->tensor_data(*emb), sizeof first);
  EXPECT_TRUE(std::isfinite(first));
}

TEST(GgufFile, EveryModelOpens) {
  auto files = gguf_files("models");
  ASSERT_GE(files.size(), 27u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto f = File::open(path);
    const auto arch = f->get_string("general.architecture");
    ASSERT_TRUE(arch.has_value());
    EXPECT_TRUE(*arch == "llama" || *arch == "qwen2");
    EXPECT_TRUE(f->get_u64(*arch + ".block_count").has_value());
    EXPECT_TRUE(f->get_f64(*arch + ".attention.layer_norm_rms_epsilon").has_value());
    EXPECT_GT(f->tensors().size(), 10u);
    EXPECT_NE(f->find_tensor("token_embd.weight"), nullptr);
    EXPECT_EQ(f->get_string_array("tokenizer.ggml.tokens")->size(), 512u);
  }
}

TEST(GgufFile, QuantizedModelsMixTypesPerTensor) {
  auto f = File::open(testdata("models/tiny-llama-Q4_K_M.gguf"));
  bool q4k = false, q6k = false;
  for (const auto& t : f->tensors()) {
    q4k |= t.type == TensorType::Q4_K;
    q6k |= t.type == TensorType::Q6_K;
    const auto rs = row_size(t.type, t.ne[0]);
    ASSERT_TRUE(rs.has_value());
    EXPECT_EQ(t.size_bytes, *rs * static_cast<uint64_t>(t.n_rows())) << t.name;
  }
  EXPECT_TRUE(q4k);
  EXPECT_TRUE(q6k);
}

TEST(GgufFile, VocabularyOnlyFilesOpen) {
  auto files = gguf_files("tokenizer");
  ASSERT_EQ(files.size(), 5u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    auto f = File::open(path);
    EXPECT_TRUE(f->tensors().empty());
    EXPECT_LE(f->data_offset(), f->bytes().size());
    const auto tokens = f->get_string_array("tokenizer.ggml.tokens");
    ASSERT_TRUE(tokens.has_value());
    EXPECT_GT(tokens->size(), 1000u);
    EXPECT_TRUE(f->get_string("tokenizer.ggml.model").has_value());
  }
  auto gpt2 = File::open(testdata("tokenizer/ggml-vocab-gpt-2.gguf"));
  EXPECT_EQ(gpt2->get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_TRUE(gpt2->get_string_array("tokenizer.ggml.merges").has_value());
}

TEST(GgufFile, FromMemoryMatchesOpen) {
  auto mapped = File::open(testdata("models/stories260K.gguf"));
  auto copy = std::make_shared<std::vector<uint8_t>>(mapped->bytes().begin(), mapped->bytes().end());
  auto f = File::from_memory(*copy, "stories-copy", copy);
  copy.reset();  // the File keeps the bytes alive through `owner`
  EXPECT_EQ(f->path(), "stories-copy");
  EXPECT_EQ(f->tensors().size(), mapped->tensors().size());
  EXPECT_EQ(f->data_offset(), mapped->data_offset());
  EXPECT_EQ(f->get_u64("llama.block_count"), 5u);
  const TensorInfo* t = f->find_tensor("output_norm.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::memcmp(f->tensor_data(*t), mapped->tensor_data(*mapped->find_tensor("output_norm.weight")),
                        t->size_bytes),
            0);
}

TEST(GgufFile, TypedGettersRejectWrongTypes) {
  auto f = File::open(testdata("models/stories260K.gguf"));
  try {
    (void)f->get_u64("general.architecture");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find("general.architecture"), std::string::npos);
  }
  EXPECT_THROW((void)f->get_string("llama.block_count"), Error);
  EXPECT_THROW((void)f->get_bool("llama.block_count"), Error);
  EXPECT_THROW((void)f->get_string_array("tokenizer.ggml.scores"), Error);
  EXPECT_THROW((void)f->get_i64_array("tokenizer.ggml.tokens"), Error);
  EXPECT_THROW((void)f->get_f64("tokenizer.ggml.tokens"), Error);
  EXPECT_EQ(f->get_f64_array("tokenizer.ggml.token_type")->size(), 512u);  // integers widen
}

TEST(GgufFile, MissingAndNonRegularFilesAreIoErrors) {
  try {
    (void)File::open(testdata("models/does-not-exist.gguf"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  try {
    (void)File::open(testdata("models"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
  }
}

}  // namespace
}  // namespace a3s::power::gguf

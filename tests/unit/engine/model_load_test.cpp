// Model::load error paths: every bad file gives a typed Error with a one-line message.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <utility>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "load_error.h"
#include "model/gguf/gguf_file.h"
#include "support/gguf_builder.h"

namespace a3s::power {
namespace {

using testing::TempDir;

using testing::load_error;

std::string patched(const TempDir& dir, const std::string& model, const std::function<void(std::vector<uint8_t>&)>& fn) {
  auto b = testing::read_bytes(testing::model_path(model));
  fn(b);
  const std::string out = dir.file(model + ".patched.gguf");
  testing::write_bytes(out, b);
  return out;
}

TEST(ModelLoad, MissingFileIsIoError) {
  auto [code, msg] = load_error("/nonexistent/dir/model.gguf");
  EXPECT_EQ(code, "io_error");
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(ModelLoad, GarbageAndTruncatedFilesAreInvalidModel) {
  TempDir dir;
  testing::write_bytes(dir.file("garbage.gguf"), std::vector<uint8_t>(1000, 0x41));
  EXPECT_EQ(load_error(dir.file("garbage.gguf")).first, "invalid_model");
  auto b = testing::read_bytes(testing::model_path("stories260K"));
  b.resize(b.size() / 2);
  testing::write_bytes(dir.file("half.gguf"), b);
  auto [code, msg] = load_error(dir.file("half.gguf"));
  EXPECT_EQ(code, "invalid_model");
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(ModelLoad, UnknownArchitectureIsUnsupported) {
  TempDir dir;
  auto path = patched(dir, "stories260K", [](auto& b) { testing::patch_string_value(b, "general.architecture", "mamba"); });
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, "unsupported_architecture");
  EXPECT_NE(msg.find("mamba"), std::string::npos);
}

TEST(ModelLoad, ActivationOnlyTensorTypeIsUnsupported) {
  TempDir dir;
  // Q8_K (15) is a valid ggml type but only ever an activation format: no weight dot product exists.
  auto path = patched(dir, "tiny-llama-f32", [](auto& b) { testing::patch_tensor_type(b, "blk.1.attn_q.weight", 15); });
  auto [code, msg] = load_error(path);
  EXPECT_EQ(code, "unsupported_tensor_type");
  EXPECT_NE(msg.find("blk.1.attn_q.weight"), std::string::npos) << msg;
}

TEST(ModelLoad, WrongShapeAndMissingTensorAreInvalidModel) {
  TempDir dir;
  auto shape = patched(dir, "tiny-llama-f32", [](auto& b) { testing::patch_tensor_dim(b, "blk.2.ffn_up.weight", 1, 512); });
  auto [code, msg] = load_error(shape);
  EXPECT_EQ(code, "invalid_model");
  EXPECT_NE(msg.find("blk.2.ffn_up.weight"), std::string::npos) << msg;

  auto missing = patched(dir, "tiny-qwen2-f32", [](auto& b) { testing::patch_tensor_name(b, "blk.0.attn_k.bias", "blk.0.attn_k.bian"); });
  auto [code2, msg2] = load_error(missing);
  EXPECT_EQ(code2, "invalid_model");
  EXPECT_NE(msg2.find("blk.0.attn_k.bias"), std::string::npos) << msg2;
}

TEST(ModelLoad, BadOptionsAreInvalidArgument) {
  try {
    Model::load(testing::model_path("stories260K"), {.n_threads = 1, .n_batch = 0});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

TEST(ModelLoad, TiedEmbeddingsServeAsOutputHead) {
  // Without output.weight the model uses token_embd.weight as its head; the model must still load
  // and produce finite logits. (Renaming output.weight instead leaves a tensor the graph does not
  // use: refused.)
  TempDir dir;
  auto renamed = patched(dir, "stories260K", [](auto& b) { testing::patch_tensor_name(b, "output.weight", "outpux.weight"); });
  EXPECT_EQ(load_error(renamed).first, code_string(codes::kUnsupportedModelFeature));
  const std::string path = dir.file("tied.gguf");
  testing::write_derived_model(testing::model_path("stories260K"),
                               {.name = "tied", .base = "stories260K", .removed = {"output.weight"}}, path);
  auto m = Model::load(path, {.n_threads = 1});
  Context ctx(m, {.n_ctx = 8});
  const std::vector<Token> t = {1, 403};
  auto logits = ctx.eval(t);
  ASSERT_EQ(logits.size(), 512u);
  for (float v : logits) ASSERT_TRUE(std::isfinite(v));
}

// ModelInfo::decode_bytes counts every tensor once, but only one row of a token-embedding table that
// is not also the output head (stories260K: 512 rows of 64 F32 values, 256 bytes a row).
TEST(ModelLoad, DecodeBytesCountOneEmbeddingRowUnlessTheHeadIsTied) {
  auto tensor_bytes = [](const std::string& path) {
    uint64_t sum = 0, embd = 0;
    const auto file = gguf::File::open(path);
    for (const gguf::TensorInfo& t : file->tensors()) {
      sum += t.size_bytes;
      if (t.name == "token_embd.weight") embd = t.size_bytes;
    }
    return std::pair{sum, embd};
  };
  const std::string untied = testing::model_path("stories260K");
  const auto [sum, embd] = tensor_bytes(untied);
  ASSERT_EQ(embd, 512u * 64u * 4u);
  EXPECT_EQ(Model::load(untied, {.n_threads = 1})->info().decode_bytes, sum - embd + 256u);
  TempDir dir;
  const std::string tied = dir.file("tied.gguf");
  testing::write_derived_model(untied, {.name = "tied", .base = "stories260K", .removed = {"output.weight"}}, tied);
  EXPECT_EQ(Model::load(tied, {.n_threads = 1})->info().decode_bytes, tensor_bytes(tied).first)
      << "a tied head reads the whole table";
}

}  // namespace
}  // namespace a3s::power

#include "store/model_summary.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"

namespace a3s::power::store {
namespace {

std::string model(const std::string& f) {
  return std::string(A3S_TESTDATA_DIR) + "/models/" + f;
}

TEST(ModelSummary, Stories260K) {
  const ModelSummary s = summarize_model_file(model("stories260K.gguf"));
  EXPECT_EQ(s.architecture, "llama");
  EXPECT_EQ(s.quantization, "F32");
  EXPECT_EQ(s.n_ctx_train, 2048u);
  EXPECT_EQ(s.n_embd, 64u);
  EXPECT_EQ(s.n_layer, 5u);
  EXPECT_EQ(s.n_head, 8u);
  EXPECT_EQ(s.n_head_kv, 4u);
  EXPECT_EQ(s.n_vocab, 512u);
  EXPECT_FALSE(s.has_chat_template);
  EXPECT_GT(s.n_params, 200000u);
  EXPECT_GT(s.n_tensors, 0u);
}

TEST(ModelSummary, DominantTypeOfMixedQuantizations) {
  EXPECT_EQ(summarize_model_file(model("tiny-llama-Q4_K_M.gguf")).quantization, "Q4_K");
  EXPECT_EQ(summarize_model_file(model("tiny-llama-Q8_0.gguf")).quantization, "Q8_0");
  EXPECT_EQ(summarize_model_file(model("tiny-llama-BF16.gguf")).quantization, "BF16");
  const ModelSummary q = summarize_model_file(model("tiny-qwen2-Q5_K_M.gguf"));
  EXPECT_EQ(q.architecture, "qwen2");
  EXPECT_EQ(q.quantization, "Q5_K");
  EXPECT_EQ(q.n_head_kv, 2u);
}

TEST(ModelSummary, MissingOrNonGgufFilesThrow) {
  try {
    summarize_model_file(model("does-not-exist.gguf"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
  }
  try {
    summarize_model_file(std::string(A3S_TESTDATA_DIR) + "/README.md");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidModel);
  }
}

}  // namespace
}  // namespace a3s::power::store

// Quantization mixes follow llama-quantize's rules for the same file type.
#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "synth/file_type.h"
#include "synth/model_shape.h"

namespace a3s::power::synth {
namespace {

TensorSlot slot(WeightKind k, int layer, int n_layer = 32, int64_t n_per_row = 4096) {
  return TensorSlot{k, layer, n_layer, n_per_row, k == WeightKind::Output, 1};
}

TEST(FileType, ParsesEveryNameCaseInsensitively) {
  EXPECT_EQ(parse_file_type("Q4_K_M"), FileType::Q4_K_M);
  EXPECT_EQ(parse_file_type("q4_k_m"), FileType::Q4_K_M);
  EXPECT_EQ(parse_file_type("bf16"), FileType::BF16);
  EXPECT_EQ(file_type_name(FileType::Q5_K_S), "Q5_K_S");
  EXPECT_EQ(file_type_id(FileType::Q4_K_M), 15u);
  EXPECT_EQ(file_type_id(FileType::Q8_0), 7u);
  EXPECT_EQ(file_type_id(FileType::BF16), 32u);
  try {
    parse_file_type("Q4_9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("Q4_K_M"), std::string::npos) << "the error lists the known types";
  }
}

TEST(FileType, Q4KMGivesMoreBitsToAttnVAndFfnDownInTheRightLayers) {
  // use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2.
  for (int i = 0; i < 32; ++i) {
    const bool more = i < 4 || i >= 28 || (i - 4) % 3 == 2;
    const TensorType want = more ? TensorType::Q6_K : TensorType::Q4_K;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::AttnV, i)), want) << i;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::FfnDown, i)), want) << i;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::AttnQ, i)), TensorType::Q4_K) << i;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::FfnUp, i)), TensorType::Q4_K) << i;
  }
}

TEST(FileType, HeadNormsAndFloatTypes) {
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::Output, -1)), TensorType::Q6_K);
  EXPECT_EQ(tensor_type(FileType::Q4_0, slot(WeightKind::Output, -1)), TensorType::Q6_K);
  EXPECT_EQ(tensor_type(FileType::Q8_0, slot(WeightKind::Output, -1)), TensorType::Q8_0);
  EXPECT_EQ(tensor_type(FileType::Q4_0, slot(WeightKind::TokenEmbd, -1)), TensorType::Q4_0);
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::Vector, 3)), TensorType::F32);
  EXPECT_EQ(tensor_type(FileType::F16, slot(WeightKind::Output, -1)), TensorType::F16);
  EXPECT_EQ(tensor_type(FileType::BF16, slot(WeightKind::FfnDown, 0)), TensorType::BF16);
  EXPECT_EQ(tensor_type(FileType::Q2_K, slot(WeightKind::AttnOutput, 5)), TensorType::Q3_K);
  EXPECT_EQ(tensor_type(FileType::Q3_K_M, slot(WeightKind::AttnV, 1)), TensorType::Q5_K);
  EXPECT_EQ(tensor_type(FileType::Q3_K_M, slot(WeightKind::AttnV, 2)), TensorType::Q4_K);
}

TEST(FileType, RowsThatAreNotWholeSuperBlocksFallBack) {
  // qwen2-0.5b: n_embd 896 is 3.5 super-blocks of 256.
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::AttnQ, 0, 24, 896)), TensorType::Q5_0);
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, slot(WeightKind::Output, -1, 24, 896)), TensorType::Q8_0);
  EXPECT_EQ(tensor_type(FileType::Q5_K_S, slot(WeightKind::AttnQ, 0, 24, 896)), TensorType::Q5_1);
  EXPECT_EQ(tensor_type(FileType::Q2_K, slot(WeightKind::AttnQ, 0, 24, 896)), TensorType::Q4_0);
  EXPECT_EQ(tensor_type(FileType::Q4_0, slot(WeightKind::AttnQ, 0, 24, 100)), TensorType::F16);
}

TEST(ModelShape, PresetsAndValidation) {
  const ModelShape s = find_shape_preset("llama-10b");
  EXPECT_EQ(s.n_embd, 4096);
  EXPECT_EQ(s.n_layer, 48);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.n_ff, 14336);
  EXPECT_NO_THROW(s.validate());
  EXPECT_NEAR(static_cast<double>(find_shape_preset("llama-7b").n_params()), 6.74e9, 0.01e9);
  EXPECT_NEAR(static_cast<double>(find_shape_preset("llama-1b").n_params()), 1.10e9, 0.01e9);
  EXPECT_NEAR(static_cast<double>(find_shape_preset("qwen2-0.5b").n_params()), 0.494e9, 0.005e9);
  // Qwen3-0.6B: 0.596e9 weights with its 151,936-token tied embedding (0.44e9 without it).
  EXPECT_NEAR(static_cast<double>(find_shape_preset("qwen3-0.6b").n_params()), 0.596e9, 0.005e9);
  EXPECT_EQ(find_shape_preset("qwen3-0.6b").head_size(), 128);
  EXPECT_NO_THROW(find_shape_preset("qwen3-tiny").validate());
  EXPECT_THROW(find_shape_preset("llama-3b"), Error);
  ModelShape bad = s;
  bad.n_head_kv = 5;
  EXPECT_THROW(bad.validate(), Error);
  bad = s;
  bad.arch = "gpt2";
  EXPECT_THROW(bad.validate(), Error);
  bad = s;
  bad.n_ff = 0;
  EXPECT_THROW(bad.validate(), Error);
  bad = s;
  bad.head_dim = 33;  // odd: no RoPE pairs
  EXPECT_THROW(bad.validate(), Error);
  bad.head_dim = -1;
  EXPECT_THROW(bad.validate(), Error);
}

}  // namespace
}  // namespace a3s::power::synth

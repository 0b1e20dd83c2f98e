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

TEST(FileType, TheRouterStaysF32AndExpertsFollowTheirDenseKinds) {
  TensorSlot router = slot(WeightKind::FfnGateInp, 0, 48, 2048);
  router.n_expert = 128;
  for (FileType t : {FileType::F16, FileType::BF16, FileType::Q8_0, FileType::Q4_K_M, FileType::Q2_K,
                     FileType::IQ4_XS})
    EXPECT_EQ(tensor_type(t, router), TensorType::F32) << file_type_name(t);
  // Experts are FfnGate / FfnUp / FfnDown slots: Q4_K_M gives ffn_down_exps more bits in the same layers.
  TensorSlot down = slot(WeightKind::FfnDown, 0, 48, 768);  // Qwen3-30B-A3B's ffn_down_exps
  down.n_expert = 128;
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, down), TensorType::Q6_K);
  down.layer = 7;  // (7 - 6) % 3 != 2
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, down), TensorType::Q4_K);
  EXPECT_EQ(tensor_type(FileType::Q8_0, down), TensorType::Q8_0);
  down.n_per_row = 128;  // qwen3moe-tiny: rows that are not whole super-blocks fall back
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, down), TensorType::Q5_0);
  EXPECT_EQ(tensor_type(FileType::IQ4_XS, down), TensorType::IQ4_NL);
  TensorSlot up = slot(WeightKind::FfnUp, 7, 48, 2048);
  up.n_expert = 128;
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, up), TensorType::Q4_K);
  EXPECT_EQ(tensor_type(FileType::F16, up), TensorType::F16);
}

TEST(FileType, EightExpertsGiveAttnKAndVQ8_0AndAttnOutputQ5K) {
  // llama-quant's Mixtral rules (n_expert == 8).
  for (WeightKind k : {WeightKind::AttnK, WeightKind::AttnV}) {
    TensorSlot s = slot(k, 3);
    s.n_expert = 8;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, s), TensorType::Q8_0);
    EXPECT_EQ(tensor_type(FileType::Q4_0, s), TensorType::Q8_0);
    EXPECT_EQ(tensor_type(FileType::F16, s), TensorType::F16);
    s.n_expert = 4;
    EXPECT_EQ(tensor_type(FileType::Q4_K_M, s), k == WeightKind::AttnK ? TensorType::Q4_K : TensorType::Q6_K);
  }
  TensorSlot out = slot(WeightKind::AttnOutput, 3);
  out.n_expert = 8;
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, out), TensorType::Q5_K);
  EXPECT_EQ(tensor_type(FileType::Q2_K, out), TensorType::Q5_K);
  EXPECT_EQ(tensor_type(FileType::IQ4_XS, out), TensorType::Q5_K);
  EXPECT_EQ(tensor_type(FileType::Q6_K, out), TensorType::Q6_K);
  EXPECT_EQ(tensor_type(FileType::Q8_0, out), TensorType::Q8_0);
  TensorSlot q = slot(WeightKind::AttnQ, 3);
  q.n_expert = 8;
  EXPECT_EQ(tensor_type(FileType::Q4_K_M, q), TensorType::Q4_K);
}

TEST(ModelShape, MixtureOfExpertsPresets) {
  const ModelShape q = find_shape_preset("qwen3moe-30b-a3b");
  EXPECT_EQ(q.arch, "qwen3moe");
  EXPECT_EQ(q.n_expert, 128);
  EXPECT_EQ(q.n_expert_used, 8);
  EXPECT_EQ(q.expert_ff(), 768);
  EXPECT_FALSE(q.tied_embeddings);
  EXPECT_NO_THROW(q.validate());
  EXPECT_NEAR(static_cast<double>(q.n_params()), 30.53e9, 0.01e9);  // Qwen3-30B-A3B: 30.5B
  const ModelShape m = find_shape_preset("mixtral-8x7b");
  EXPECT_EQ(m.arch, "llama");
  EXPECT_EQ(m.expert_ff(), 14336);
  EXPECT_NO_THROW(m.validate());
  EXPECT_NEAR(static_cast<double>(m.n_params()), 46.70e9, 0.01e9);  // Mixtral 8x7B: 46.7B
  for (const char* tiny : {"qwen3moe-tiny", "mixtral-tiny"}) EXPECT_NO_THROW(find_shape_preset(tiny).validate());
  EXPECT_EQ(find_shape_preset("qwen3moe-tiny").expert_ff(), 128);
  EXPECT_EQ(find_shape_preset("mixtral-tiny").expert_ff(), 256);
  // qwen3moe without n_ff_exp: n_ff / n_expert_used, as llama.cpp reads such a file.
  ModelShape d = find_shape_preset("qwen3moe-tiny");
  d.n_ff_exp = 0;
  EXPECT_EQ(d.expert_ff(), 384 / 2);
  EXPECT_EQ(find_shape_preset("qwen3-tiny").expert_ff(), 0);
}

// The message names what is wrong.
void expect_refused(const ModelShape& s, const std::string& what) {
  try {
    s.validate();
    ADD_FAILURE() << "accepted; expected an error about " << what;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(ModelShape, BadExpertShapesAreRefused) {
  const ModelShape q = find_shape_preset("qwen3moe-tiny"), m = find_shape_preset("mixtral-tiny");
  ModelShape bad = q;
  bad.n_expert = 0;
  bad.n_expert_used = 0;
  expect_refused(bad, "qwen3moe needs n_expert");
  bad = q;
  bad.n_expert = 257;
  expect_refused(bad, "n_expert must be in 0..256");
  bad.n_expert = -1;
  expect_refused(bad, "n_expert must be in 0..256");
  bad = q;
  bad.n_expert_used = 0;
  expect_refused(bad, "n_expert_used");
  bad.n_expert_used = 9;
  expect_refused(bad, "n_expert_used");
  bad = find_shape_preset("qwen3-tiny");
  bad.n_expert = 8;
  bad.n_expert_used = 2;
  expect_refused(bad, "need arch llama or qwen3moe");
  bad = find_shape_preset("llama-1b");
  bad.n_expert_used = 2;  // without experts
  expect_refused(bad, "n_expert_used");
  bad = find_shape_preset("llama-1b");
  bad.n_ff_exp = 512;  // without experts
  expect_refused(bad, "n_ff_exp needs experts");
  bad = m;
  bad.n_ff_exp = 128;
  expect_refused(bad, "n_ff_exp must be 0 or n_ff");
  bad = m;
  bad.n_ff_exp = 256;  // = n_ff: accepted
  EXPECT_NO_THROW(bad.validate());
  bad = q;
  bad.n_ff_exp = -4;
  expect_refused(bad, "n_ff_exp must be in");
  bad = q;
  bad.n_ff_exp = 0;
  bad.n_ff = 1;  // 1 / 2 experts used: no width
  expect_refused(bad, "expert width");
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

// Embeddings against llama.cpp: the mean-pooled, L2-normalised final hidden states of four prompts
// on four test models (tests/data/reference/embeddings/, made with llama-embedding) agree within
// 1e-3 per component; eval_hidden() keeps the sequence like eval(); rank pooling and an empty input
// are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "engine/embedding.h"
#include "support/test_data.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {
namespace {

using nlohmann::json;

json embedding_reference(const std::string& model) {
  std::ifstream f(std::string(A3S_SOURCE_DIR) + "/tests/data/reference/embeddings/" + model + ".json");
  EXPECT_TRUE(f.good()) << model;
  return json::parse(f);
}

class EmbeddingParity : public ::testing::TestWithParam<const char*> {};

TEST_P(EmbeddingParity, MatchesLlamaEmbeddingWithin1e3) {
  const json ref = embedding_reference(GetParam());
  auto model = Model::load(testing::model_path(GetParam()), {.n_threads = 2});
  EXPECT_EQ(embedding_pooling(*model), "mean");
  Context ctx(model, {.n_ctx = 256});
  const Tokenizer& tok = model->tokenizer();
  ASSERT_EQ(ref["prompts"].size(), ref["embeddings"].size());
  for (size_t p = 0; p < ref["prompts"].size(); ++p) {
    const std::vector<Token> tokens = tok.encode(ref["prompts"][p].get<std::string>(), true, false);
    const std::vector<float> e = embed(ctx, tokens);
    const json& want = ref["embeddings"][p];
    ASSERT_EQ(e.size(), want.size());
    double norm = 0, worst = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      norm += static_cast<double>(e[i]) * e[i];
      worst = std::max(worst, std::fabs(e[i] - want[i].get<double>()));
    }
    EXPECT_NEAR(norm, 1.0, 1e-5) << p;
    EXPECT_LT(worst, 1e-3) << GetParam() << " prompt " << p;
    EXPECT_EQ(ctx.n_past(), static_cast<int>(tokens.size()));  // the context holds the input
  }
}

INSTANTIATE_TEST_SUITE_P(Models, EmbeddingParity,
                         ::testing::Values("tiny-llama-f32", "tiny-qwen2-f32", "tiny-llama-Q8_0", "stories260K"));

TEST(Embedding, EvalHiddenKeepsTheSequenceAsEvalDoes) {
  auto model = Model::load(testing::stories_model(), {.n_threads = 2});
  const std::vector<Token> tokens = model->tokenizer().encode("Once upon a time", true, false);
  const size_t n_embd = static_cast<size_t>(model->info().n_embd);
  Context d(model, {.n_ctx = 64});
  const auto h = d.eval_hidden(tokens);
  ASSERT_EQ(h.size(), tokens.size() * n_embd);
  EXPECT_EQ(d.n_past(), static_cast<int>(tokens.size()));
  double sum = 0;
  for (float v : h) {
    ASSERT_TRUE(std::isfinite(v));
    sum += std::fabs(v);
  }
  EXPECT_GT(sum, 0.0);
  // The next token after it gives the logits a plain evaluation of the whole sequence gives.
  const Token next[1] = {tokens[1]};
  Context e(model, {.n_ctx = 64});
  e.eval_hidden(tokens);
  const auto after = e.eval(next);
  Context c(model, {.n_ctx = 64});
  std::vector<Token> seq = tokens;
  seq.push_back(tokens[1]);
  const auto plain = c.eval(seq);
  ASSERT_EQ(plain.size(), after.size());
  for (size_t i = 0; i < plain.size(); ++i) ASSERT_EQ(plain[i], after[i]) << i;
  EXPECT_THROW(embed(e, std::vector<Token>{}), Error);
}

}  // namespace
}  // namespace a3s::power

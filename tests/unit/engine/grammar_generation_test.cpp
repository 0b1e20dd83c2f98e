// Grammar-constrained generation on stories260K: greedy output is the argmax of the grammar-masked
// logits at every step (the grammar constrains the model rather than replacing it), sampled outputs
// are sentences of the grammar and differ across seeds, and a grammar that admits nothing more ends
// the generation.
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "a3s/power/engine.h"
#include "engine/generator.h"
#include "engine/grammar_vocab.h"
#include "grammar/matcher.h"
#include "support/gguf_builder.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {
namespace {

// Words of lower-case letters separated by single spaces, then a full stop.
constexpr const char* kSentence = R"(root ::= word (" " word){0,11} "."
word ::= [a-z]{1,10})";

class GrammarGeneration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(testing::model_path("stories260K"), {.n_threads = 2}); }
  static void TearDownTestSuite() { model_.reset(); }

  static GenerationRequest request(const char* grammar_text, float temperature, uint64_t seed) {
    GenerationRequest r;
    r.prompt = model_->tokenizer().encode("Once upon a time", true, false);
    r.sampling.temperature = temperature;
    r.sampling.seed = seed;
    r.max_tokens = 60;
    r.grammar = grammar::parse_grammar(grammar_text);
    return r;
  }

  static std::shared_ptr<Model> model_;
};
std::shared_ptr<Model> GrammarGeneration::model_;

TEST_F(GrammarGeneration, GreedyIsTheArgmaxOfTheMaskedLogitsAtEveryStep) {
  Context ctx(model_, {.n_ctx = 128});
  const GenerationRequest req = request(kSentence, 0.0f, 1);
  const GenerationResult r = generate(ctx, req);
  ASSERT_EQ(r.finish, FinishReason::Stop);
  ASSERT_FALSE(r.tokens.empty());

  // Replay: the same prompt, the mask computed here, the argmax (ties: lowest id) taken here.
  const Tokenizer& tok = model_->tokenizer();
  const int n_vocab = model_->info().n_vocab;
  const grammar::TokenTrie& trie = engine::grammar_vocabulary(*model_, false);
  grammar::Matcher m(req.grammar);
  Context replay(model_, {.n_ctx = 128});
  std::span<const float> logits = replay.eval(req.prompt);
  std::vector<uint8_t> allowed;
  int unmasked_argmax_differs = 0;
  for (size_t step = 0; step <= r.tokens.size(); ++step) {
    grammar::allowed_tokens(m, trie, allowed);
    Token best = -1, raw_best = 0;
    for (Token t = 0; t < n_vocab; ++t) {
      const float v = logits[static_cast<size_t>(t)];
      if (v > logits[static_cast<size_t>(raw_best)]) raw_best = t;
      const bool ok = allowed[static_cast<size_t>(t)] != 0 || (m.can_end() && tok.is_eog(t));
      if (ok && (best < 0 || v > logits[static_cast<size_t>(best)])) best = t;
    }
    ASSERT_GE(best, 0);
    if (step == r.tokens.size()) {
      // The generation ended here: by an end-of-generation token or because the grammar was done.
      EXPECT_TRUE(tok.is_eog(best) || m.finished()) << "step " << step;
      break;
    }
    EXPECT_EQ(r.tokens[step], best) << "step " << step;
    if (best != raw_best) ++unmasked_argmax_differs;
    ASSERT_TRUE(m.accept(tok.token_to_piece(best)));
    const Token next[1] = {best};
    logits = replay.eval(next);
  }
  // The grammar changed the model's choice somewhere (the test is not vacuous).
  EXPECT_GT(unmasked_argmax_differs, 0);
}

TEST_F(GrammarGeneration, SampledOutputsAreSentencesOfTheGrammarAndDifferAcrossSeeds) {
  std::set<std::string> texts;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Context ctx(model_, {.n_ctx = 128});
    const GenerationRequest req = request(kSentence, 1.0f, seed);
    const GenerationResult r = generate(ctx, req);
    ASSERT_EQ(r.finish, FinishReason::Stop) << seed;
    grammar::Matcher m(req.grammar);
    EXPECT_TRUE(m.accept(r.text)) << r.text;
    EXPECT_TRUE(m.can_end()) << r.text;
    texts.insert(r.text);
  }
  EXPECT_GE(texts.size(), 4u);
}

TEST_F(GrammarGeneration, AGrammarThatIsDoneEndsTheGeneration) {
  Context ctx(model_, {.n_ctx = 128});
  const GenerationRequest req = request(R"(root ::= "yes" | "no")", 0.8f, 7);
  std::string streamed;
  const GenerationResult r = generate(ctx, req, [&](std::string_view d, Token) {
    streamed += d;
    return true;
  });
  EXPECT_EQ(r.finish, FinishReason::Stop);
  EXPECT_TRUE(r.text == "yes" || r.text == "no") << r.text;
  EXPECT_EQ(streamed, r.text);
  EXPECT_LE(r.tokens.size(), 3u);
}

TEST_F(GrammarGeneration, LengthLeavesAValidPrefix) {
  Context ctx(model_, {.n_ctx = 128});
  GenerationRequest req = request(kSentence, 1.0f, 3);
  req.max_tokens = 3;
  const GenerationResult r = generate(ctx, req);
  if (r.finish == FinishReason::Length) {
    grammar::Matcher m(req.grammar);
    EXPECT_TRUE(m.accept(r.text)) << r.text;
  }
  EXPECT_LE(r.tokens.size(), 3u);
}

}  // namespace
}  // namespace a3s::power

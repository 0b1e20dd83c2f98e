// Token sampling: greedy; temperature, top_k, top_p, min_p; repetition, frequency and presence
// penalties; per-request seed.
//
// Order (as llama.cpp's default chain): penalties → top_k → top_p → min_p → temperature → draw.
// temperature <= 0 (or top_k == 1) is greedy (argmax; ties → lowest id). A request without a seed
// gets a fresh random one (reported by `seed()`); the same seed and logits reproduce the same draw.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power {

struct SamplingParams {
  float temperature = 0.8f;
  int top_k = 40;              // <= 0: disabled
  float top_p = 0.95f;         // >= 1: disabled
  float min_p = 0.05f;         // <= 0: disabled
  float repeat_penalty = 1.0f; // 1: disabled (llama.cpp semantics: divide positive logits, multiply negative)
  int repeat_last_n = 64;      // window of recent tokens the penalties look at (-1 = all)
  float frequency_penalty = 0.0f;  // OpenAI semantics: logit -= count * frequency_penalty
  float presence_penalty = 0.0f;   // logit -= presence_penalty if count > 0
  std::optional<uint64_t> seed;
};

class Sampler {
 public:
  Sampler(const SamplingParams& params, int n_vocab);
  // Picks the next token from a row of n_vocab logits. Does not modify `logits`.
  Token sample(std::span<const float> logits);
  // Records a token as part of the sequence (prompt or generated) for the penalties.
  void accept(Token t);
  uint64_t seed() const { return seed_; }
  const SamplingParams& params() const { return params_; }

 private:
  SamplingParams params_;
  int n_vocab_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::deque<Token> recent_;
  std::vector<std::pair<float, Token>> candidates_;  // reused scratch (no per-token allocation)
};

}  // namespace a3s::power

// Token sampling: greedy; temperature, top_k, top_p, min_p; repetition, frequency and presence
// penalties; per-request seed.
//
// Order (as llama.cpp's default chain): logit bias → penalties → top_k → top_p → min_p →
// temperature → draw. temperature <= 0 (or top_k == 1) is greedy: argmax of the biased, penalised
// logits, ties → lowest id
// (penalties are off by default, so this is the plain argmax). A request without a seed gets a
// fresh random one (reported by `seed()`); the same seed, accepted tokens and logits reproduce the
// same draws. The draw uses std::mt19937_64 (53 high bits → uniform [0, 1)), which is specified
// exactly by the standard, so draws do not depend on the standard library.
//
// Errors: the constructor throws Error(codes::kInvalidArgument) naming the parameter for temperature
// < 0, top_p outside (0, 1], min_p outside [0, 1], repeat_penalty <= 0, repeat_last_n < -1,
// non-finite frequency/presence penalties (NaN anywhere), a logit_bias that is not sorted by unique
// ids in [0, n_vocab) with finite biases, or n_vocab <= 0. sample() throws
// Error(codes::kInvalidArgument) when the row is not n_vocab floats and Error(codes::kInternal) when
// no logit is finite; accept() throws Error(codes::kInvalidArgument) for ids outside [0, n_vocab).
//
// Cost: sample() is O(n_vocab) plus sorting the survivors of top_k (or of min_p when top_k is
// off); it allocates nothing (scratch is sized once per Sampler).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "a3s/power/engine.h"
#include "sampling/candidates.h"
#include "sampling/penalties.h"

namespace a3s::power {

// One entry of OpenAI's logit_bias (SamplingParams::logit_bias).
struct LogitBias {
  Token id;
  float bias;
};

struct SamplingParams {
  float temperature = 0.8f;
  int top_k = 40;       // <= 0: disabled
  float top_p = 0.95f;  // >= 1: disabled
  float min_p = 0.05f;  // <= 0: disabled
  float repeat_penalty =
      1.0f;                // 1: disabled (llama.cpp semantics: divide positive logits, multiply negative)
  int repeat_last_n = 64;  // window of recent tokens the penalties look at (-1 = all)
  float frequency_penalty = 0.0f;  // OpenAI semantics: logit -= count * frequency_penalty
  float presence_penalty = 0.0f;   // logit -= presence_penalty if count > 0
  std::optional<uint64_t> seed;
  // OpenAI's logit_bias: entries sorted by unique id; the bias is added to the
  // token's logit before everything else (greedy included), so -100 in effect bans a token and +100
  // in effect forces it. The API takes biases in [-100, 100].
  std::vector<LogitBias> logit_bias;
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
  bool greedy() const { return greedy_; }

  // The distribution the last sample() drew from: the surviving candidates, best first, with
  // their final probabilities (after temperature). Greedy: the chosen token with p = 1. Valid
  // until the next sample().
  std::span<const sampling::Candidate> last_distribution() const { return {candidates_.data(), n_kept_}; }

 private:
  SamplingParams params_;
  int n_vocab_;
  bool greedy_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  sampling::Penalties penalties_;
  std::vector<sampling::Candidate> candidates_;  // reused scratch (no per-token allocation)
  size_t n_kept_ = 0;
};

}  // namespace a3s::power

// Log probabilities of a row of logits, as OpenAI's `logprobs` / `top_logprobs` report them: the
// log-softmax of the model's raw logits (before the logit bias, penalties, truncation and
// temperature), so a token's log probability is the same whatever the sampling settings were.
//
// log p(t) = logit[t] - log(sum_j exp(logit[j])), computed in double with the maximum subtracted
// first. NaN and -inf logits count as probability 0 (log probability -inf); +inf logits are treated
// as the largest finite float (as the sampler does). Cost: one pass over the row for the normaliser,
// one for the top k (k <= kMaxTopLogprobs, kept in a small sorted array); nothing is allocated
// beyond the returned vector.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power::sampling {

// The most alternatives one token can report (OpenAI's top_logprobs range, 0..20).
inline constexpr int kMaxTopLogprobs = 20;

struct TokenLogprob {
  Token id = 0;
  float logprob = 0.0f;  // natural log; -inf for a token that can never be drawn
};

// The normaliser of one row: log(sum exp(logit)). -inf when no logit is finite.
class LogSoftmax {
 public:
  explicit LogSoftmax(std::span<const float> logits);
  // log p(id). Throws Error(codes::kInvalidArgument) for an id outside the row.
  float logprob(Token id) const;
  // The k most probable tokens, most probable first, ties by lower id; k is clamped to
  // [0, min(kMaxTopLogprobs, row size)]. Tokens with log probability -inf are never listed.
  std::vector<TokenLogprob> top(int k) const;

 private:
  std::span<const float> logits_;
  double log_z_ = 0.0;
};

}  // namespace a3s::power::sampling

// Repetition, frequency and presence penalties over a window of recent tokens.
//
// For a token that occurs `count` > 0 times among the last `repeat_last_n` accepted tokens:
//   repetition (llama.cpp, src/llama-sampling.cpp "penalties"): logit / repeat_penalty when the
//     logit is positive, logit * repeat_penalty otherwise;
//   then frequency and presence (OpenAI API reference): logit -= count * frequency_penalty
//     + presence_penalty.
// Tokens outside the window are untouched. The window holds at most repeat_last_n tokens
// (-1: every accepted token; 0: penalties off).
#pragma once

#include <deque>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power {
struct SamplingParams;
}

namespace a3s::power::sampling {

class Penalties {
 public:
  // Params must already be validated (see Sampler).
  Penalties(const SamplingParams& params, int n_vocab);

  // True when any penalty can change a logit.
  bool active() const { return active_; }
  // Records an accepted token (throws Error(codes::kInvalidArgument) outside [0, n_vocab)).
  void accept(Token t);
  // Occurrences of `t` in the window.
  int count(Token t) const { return active_ ? counts_[static_cast<size_t>(t)] : 0; }
  // The penalised logit of a token that occurs `count` > 0 times in the window.
  float apply(float logit, int count) const;

 private:
  bool active_ = false;
  float repeat_penalty_ = 1.0f, frequency_ = 0.0f, presence_ = 0.0f;
  int window_ = 0;
  int n_vocab_ = 0;
  std::deque<Token> recent_;
  std::vector<int> counts_;  // per token id, occurrences in recent_
};

}  // namespace a3s::power::sampling

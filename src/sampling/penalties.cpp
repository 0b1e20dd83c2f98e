#include "sampling/penalties.h"

#include <string>

#include "a3s/power/error.h"
#include "sampling/sampler.h"

namespace a3s::power::sampling {

Penalties::Penalties(const SamplingParams& params, int n_vocab)
    : repeat_penalty_(params.repeat_penalty),
      frequency_(params.frequency_penalty),
      presence_(params.presence_penalty),
      window_(params.repeat_last_n),
      n_vocab_(n_vocab) {
  active_ = window_ != 0 && (repeat_penalty_ != 1.0f || frequency_ != 0.0f || presence_ != 0.0f);
  if (active_) counts_.assign(static_cast<size_t>(n_vocab), 0);
}

void Penalties::accept(Token t) {
  if (t < 0 || t >= n_vocab_) {
    throw Error(codes::kInvalidArgument,
                "token id " + std::to_string(t) + " outside the vocabulary of " + std::to_string(n_vocab_));
  }
  if (!active_) return;
  recent_.push_back(t);
  ++counts_[static_cast<size_t>(t)];
  if (window_ > 0 && recent_.size() > static_cast<size_t>(window_)) {
    --counts_[static_cast<size_t>(recent_.front())];
    recent_.pop_front();
  }
}

float Penalties::apply(float logit, int count) const {
  if (repeat_penalty_ != 1.0f) logit = logit > 0.0f ? logit / repeat_penalty_ : logit * repeat_penalty_;
  return logit - (static_cast<float>(count) * frequency_ + presence_);
}

}  // namespace a3s::power::sampling

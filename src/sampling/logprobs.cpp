#include "sampling/logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "a3s/power/error.h"

namespace a3s::power::sampling {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The value the row stands for at one place: NaN and -inf → -inf, +inf → the largest float.
float usable(float l) {
  if (std::isnan(l)) return kNegInf;
  if (l == std::numeric_limits<float>::infinity()) return std::numeric_limits<float>::max();
  return l;
}

}  // namespace

LogSoftmax::LogSoftmax(std::span<const float> logits) : logits_(logits) {
  float max_logit = kNegInf;
  for (float l : logits) max_logit = std::max(max_logit, usable(l));
  if (max_logit == kNegInf) {
    log_z_ = std::numeric_limits<double>::infinity();  // every log probability is -inf
    return;
  }
  double sum = 0.0;
  for (float l : logits) {
    const float u = usable(l);
    if (u != kNegInf) sum += std::exp(static_cast<double>(u) - max_logit);
  }
  log_z_ = static_cast<double>(max_logit) + std::log(sum);
}

float LogSoftmax::logprob(Token id) const {
  if (id < 0 || static_cast<size_t>(id) >= logits_.size()) {
    throw Error(codes::kInvalidArgument, "token id outside the logits row");
  }
  const float u = usable(logits_[static_cast<size_t>(id)]);
  if (u == kNegInf || std::isinf(log_z_)) return kNegInf;
  return static_cast<float>(static_cast<double>(u) - log_z_);
}

std::vector<TokenLogprob> LogSoftmax::top(int k) const {
  const size_t want = std::min<size_t>(static_cast<size_t>(std::clamp(k, 0, kMaxTopLogprobs)), logits_.size());
  std::vector<TokenLogprob> best;  // sorted best first, at most `want` entries (by raw value here)
  best.reserve(want + 1);
  if (want == 0 || std::isinf(log_z_)) return best;
  for (size_t i = 0; i < logits_.size(); ++i) {
    const float u = usable(logits_[i]);
    if (u == kNegInf) continue;
    if (best.size() == want && u <= best.back().logprob) continue;  // ties keep the lower id
    // Insert after every entry at least as large (lower ids come first among equals).
    auto at = std::upper_bound(best.begin(), best.end(), u,
                               [](float v, const TokenLogprob& e) { return v > e.logprob; });
    best.insert(at, TokenLogprob{static_cast<Token>(i), u});
    if (best.size() > want) best.pop_back();
  }
  for (TokenLogprob& e : best) e.logprob = static_cast<float>(static_cast<double>(e.logprob) - log_z_);
  return best;
}

}  // namespace a3s::power::sampling

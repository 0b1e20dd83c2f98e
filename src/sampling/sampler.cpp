#include "sampling/sampler.h"

#include <cmath>
#include <limits>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

const SamplingParams& validated(const SamplingParams& p, int n_vocab) {
  auto bad = [](const std::string& what) { throw Error(codes::kInvalidArgument, what); };
  if (n_vocab <= 0) bad("sampler needs a vocabulary of at least one token");
  if (std::isnan(p.temperature) || p.temperature < 0.0f) bad("temperature must be a number >= 0");
  if (std::isnan(p.top_p) || p.top_p <= 0.0f || p.top_p > 1.0f) bad("top_p must be in (0, 1]");
  if (std::isnan(p.min_p) || p.min_p < 0.0f || p.min_p > 1.0f) bad("min_p must be in [0, 1]");
  if (!std::isfinite(p.repeat_penalty) || p.repeat_penalty <= 0.0f)
    bad("repeat_penalty must be a number > 0");
  if (p.repeat_last_n < -1) bad("repeat_last_n must be -1 (all), 0 (off) or a positive window");
  if (!std::isfinite(p.frequency_penalty)) bad("frequency_penalty must be a finite number");
  if (!std::isfinite(p.presence_penalty)) bad("presence_penalty must be a finite number");
  for (size_t i = 0; i < p.logit_bias.size(); ++i) {
    const auto [id, bias] = p.logit_bias[i];
    if (id < 0 || id >= n_vocab) bad("logit_bias names a token id outside the vocabulary");
    if (i > 0 && id <= p.logit_bias[i - 1].id) bad("logit_bias must be sorted by unique token ids");
    if (!std::isfinite(bias)) bad("logit_bias values must be finite numbers");
  }
  return p;
}

uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}

}  // namespace

Sampler::Sampler(const SamplingParams& params, int n_vocab)
    : params_(validated(params, n_vocab)),
      n_vocab_(n_vocab),
      greedy_(params.temperature <= 0.0f || params.top_k == 1),
      seed_(params.seed ? *params.seed : fresh_seed()),
      rng_(seed_),
      penalties_(params, n_vocab),
      candidates_(static_cast<size_t>(n_vocab)) {}

void Sampler::accept(Token t) {
  penalties_.accept(t);
}

Token Sampler::sample(std::span<const float> logits) {
  if (logits.size() != static_cast<size_t>(n_vocab_)) {
    throw Error(codes::kInvalidArgument, "logits row has " + std::to_string(logits.size()) +
                                             " values, expected " + std::to_string(n_vocab_));
  }
  // Bias, penalties, and the candidate set: NaN and -inf logits can never be drawn.
  const bool penalise = penalties_.active();
  const auto& bias = params_.logit_bias;  // sorted by id: walked alongside the row
  size_t next_bias = 0;
  size_t n = 0;
  float max_logit = -std::numeric_limits<float>::infinity();
  Token best = -1;
  for (int id = 0; id < n_vocab_; ++id) {
    float l = logits[static_cast<size_t>(id)];
    if (next_bias < bias.size() && bias[next_bias].id == id) l += bias[next_bias++].bias;
    if (penalise) {
      if (const int c = penalties_.count(id); c > 0) l = penalties_.apply(l, c);
    }
    if (std::isnan(l) || l == -std::numeric_limits<float>::infinity()) continue;
    if (l == std::numeric_limits<float>::infinity()) l = std::numeric_limits<float>::max();
    if (l > max_logit) {  // strict: ties keep the lowest id
      max_logit = l;
      best = id;
    }
    if (!greedy_) candidates_[n++] = {id, l, 0.0};
  }
  if (best < 0) throw Error(codes::kInternal, "logits row has no finite value to sample from");
  if (greedy_) {
    candidates_[0] = {best, max_logit, 1.0};
    n_kept_ = 1;
    return best;
  }

  std::span<sampling::Candidate> c(candidates_.data(), n);
  // top_k (sorts the survivors), else sort only what min_p can keep.
  double z = 0.0;
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < n) {
    n = sampling::keep_top_k(c, static_cast<size_t>(params_.top_k));
    c = c.first(n);
    z = sampling::mass(c, max_logit);
  } else {
    z = sampling::mass(c, max_logit);  // top_p's normaliser covers every candidate
    n = sampling::partition_min_p(c, max_logit, params_.min_p);
    c = c.first(n);
    sampling::sort_candidates(c);
  }
  c = c.first(sampling::top_p_prefix(c, params_.top_p, max_logit, z));
  c = c.first(sampling::min_p_prefix(c, params_.min_p));

  sampling::softmax(c, params_.temperature);
  n_kept_ = c.size();
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  return sampling::draw(c, u);
}

}  // namespace a3s::power

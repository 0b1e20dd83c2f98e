// The truncation stages of the sampling chain, on an array of candidate tokens.
//
// A candidate is a token id with its (penalised) logit; `p` is filled by softmax(). Stages work in
// place and never allocate. "Sorted" means by logit descending, ties by lower id first (a total
// order, so results do not depend on the sort algorithm). Semantics follow llama.cpp's samplers
// (src/llama-sampling.cpp in ggml-org/llama.cpp): top_p and min_p look at probabilities at
// temperature 1, before temperature is applied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "a3s/power/engine.h"

namespace a3s::power::sampling {

struct Candidate {
  Token id = 0;
  float logit = 0.0f;
  double p = 0.0;  // probability, valid after softmax()
};

// Strict weak order "better first": higher logit, then lower id.
inline bool better(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

// Sorts `c` (all of it).
void sort_candidates(std::span<Candidate> c);

// Moves the k best candidates to the front, sorted, and returns min(k, c.size()). k == 0 → 0.
size_t keep_top_k(std::span<Candidate> c, size_t k);

// For sorted `c`: the length of the smallest prefix whose probability mass reaches top_p (at
// least 1). Probabilities are exp(logit - max_logit) / z, where z is the sum of exp(logit -
// max_logit) over the set top_p applies to (which may be larger than `c`, see partition_min_p).
// top_p >= 1 keeps everything.
size_t top_p_prefix(std::span<const Candidate> c, double top_p, float max_logit, double z);

// For sorted `c`: the length of the prefix whose probability is at least min_p times the best
// one's (at least 1). min_p <= 0 keeps everything.
size_t min_p_prefix(std::span<const Candidate> c, double min_p);

// Unsorted `c`: moves every candidate with exp(logit - max_logit) >= min_p to the front (in no
// particular order) and returns how many there are. Lets the caller sort only the survivors.
size_t partition_min_p(std::span<Candidate> c, float max_logit, double min_p);

// Sum of exp(logit - max_logit) over `c`.
double mass(std::span<const Candidate> c, float max_logit);

// Fills p = softmax(logit / temperature) over `c` (temperature > 0). Computed in double with the
// maximum subtracted, so tiny temperatures do not overflow.
void softmax(std::span<Candidate> c, double temperature = 1.0);

// Picks a candidate by probability using `u` uniform in [0, 1): the first whose cumulative
// probability exceeds u (the last one if rounding leaves u beyond the total).
Token draw(std::span<const Candidate> c, double u);

}  // namespace a3s::power::sampling

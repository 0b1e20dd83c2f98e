// Logits of a fixed token sequence, evaluated whole or in prefill chunks, for the architecture tests.
#pragma once

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power::testing {

// n tokens 1 + (i·stride) mod 4000 (every synth vocabulary has 4,096 entries or more).
inline std::vector<Token> stride_tokens(int n, int stride) {
  std::vector<Token> t;
  for (int i = 0; i < n; ++i) t.push_back(static_cast<Token>(1 + (i * stride) % 4000));
  return t;
}

// Every row of logits of `tokens` in one context, evaluated in chunks of `chunk` (0: all at once).
inline std::vector<float> chunked_logits(const std::string& path, const std::vector<Token>& tokens, size_t chunk = 0,
                                         WeightsMode weights = WeightsMode::Resident) {
  Context ctx(Model::load(path, {.n_threads = 2, .weights = weights}), {.n_ctx = 128});
  std::vector<float> out;
  const size_t step = chunk > 0 ? chunk : tokens.size();
  for (size_t at = 0; at < tokens.size(); at += step) {
    const auto l = ctx.eval(std::span<const Token>(tokens).subspan(at, std::min(step, tokens.size() - at)), true);
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

inline bool bitwise_same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace a3s::power::testing

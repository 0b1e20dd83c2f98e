#include "perf/throughput.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "a3s/power/error.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::perf {
namespace {

using Clock = std::chrono::steady_clock;

void check(Context& ctx, int n_tokens, int reps) {
  if (n_tokens < 1) throw Error(codes::kInvalidArgument, "a benchmark needs at least one token");
  if (reps < 1) throw Error(codes::kInvalidArgument, "a benchmark needs at least one repetition");
  if (n_tokens > ctx.n_ctx()) throw Error(codes::kInvalidArgument, "the benchmark does not fit the context");
}

// n tokens: BOS first when the model adds one, then uniformly random ids.
std::vector<Token> random_tokens(const Context& ctx, int n, std::mt19937_64& rng) {
  const int n_vocab = ctx.model().info().n_vocab;
  std::uniform_int_distribution<Token> pick(0, n_vocab - 1);
  std::vector<Token> t(static_cast<size_t>(n));
  for (Token& x : t) x = pick(rng);
  const Tokenizer& tok = ctx.model().tokenizer();
  if (tok.add_bos() && tok.bos() >= 0) t[0] = tok.bos();
  return t;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double run_prefill(Context& ctx, const std::vector<Token>& tokens) {
  ctx.reset();
  const auto t0 = Clock::now();
  ctx.eval(tokens);
  return seconds_since(t0);
}

double run_decode(Context& ctx, const std::vector<Token>& tokens) {
  ctx.reset();
  const auto t0 = Clock::now();
  for (Token t : tokens) ctx.eval(std::span<const Token>(&t, 1));
  return seconds_since(t0);
}

template <typename Run>
Throughput measure(Context& ctx, int n_tokens, int n_warmup, int reps, uint64_t seed, Run run,
                   const std::function<void()>& around) {
  check(ctx, n_tokens, reps);
  std::mt19937_64 rng(seed);
  run(ctx, random_tokens(ctx, n_warmup, rng));
  Throughput out;
  out.n_tokens = n_tokens;
  if (around) around();
  for (int r = 0; r < reps; ++r) {
    const std::vector<Token> tokens = random_tokens(ctx, n_tokens, rng);
    const uint64_t read0 = ctx.model().weight_bytes_read();
    const double s = run(ctx, tokens);
    out.storage_bytes += ctx.model().weight_bytes_read() - read0;
    out.seconds += s;
    out.tokens_per_s.push_back(n_tokens / s);
    if (around) around();
  }
  ctx.reset();
  return out;
}

}  // namespace

double Throughput::mean() const {
  if (tokens_per_s.empty()) return 0.0;
  return std::accumulate(tokens_per_s.begin(), tokens_per_s.end(), 0.0) /
         static_cast<double>(tokens_per_s.size());
}

double Throughput::stddev() const {
  if (tokens_per_s.size() < 2) return 0.0;
  const double m = mean();
  double ss = 0.0;
  for (double v : tokens_per_s) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(tokens_per_s.size() - 1));
}

double Throughput::bytes_per_token() const {
  const double n = static_cast<double>(n_tokens) * static_cast<double>(tokens_per_s.size());
  return n > 0 ? static_cast<double>(storage_bytes) / n : 0.0;
}

double Throughput::read_bandwidth() const {
  return seconds > 0 ? static_cast<double>(storage_bytes) / seconds : 0.0;
}

Throughput measure_prefill(Context& ctx, int n_tokens, int reps, uint64_t seed) {
  // Warm-up as llama-bench: a short prompt (up to 32 tokens) touches every weight once.
  return measure(ctx, n_tokens, std::min(n_tokens, 32), reps, seed, run_prefill, nullptr);
}

Throughput measure_decode(Context& ctx, int n_tokens, int reps, uint64_t seed,
                          const std::function<void()>& around) {
  return measure(ctx, n_tokens, 1, reps, seed, run_decode, around);
}

}  // namespace a3s::power::perf

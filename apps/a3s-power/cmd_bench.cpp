// `a3s-power bench`: prompt-processing (pp) and generation (tg) throughput of a model plus the
// process's peak RSS, measured like llama.cpp's `llama-bench` (src/perf/throughput.h), printed as a
// Markdown table or one JSON object:
//   {"model","type","threads","pp":{"n_tokens","tokens_per_s","stddev"},
//    "tg":{"n_tokens","tokens_per_s","stddev"},"peak_rss_bytes", …}
// A test given 0 tokens is skipped (its JSON member is null); with --membw both may be skipped.
// --membw also measures the memory read bandwidth (perf/memory_bandwidth.h), before the first tg
// repetition and after each one, and gives tg as a fraction of the decode ceiling, bandwidth ÷ the
// weight bytes a token reads (ModelInfo::decode_bytes): "membw": {"bytes_per_s" (mean),
// "bytes_per_s_min", "bytes_per_s_max", "samples", "around_tg", "buffer_bytes", "decode_bytes",
// "decode_ceiling_tokens_per_s", "tg_fraction"}; null without --membw.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/decrypt_flags.h"
#include "a3s-power/model_flags.h"
#include "base/process_memory.h"
#include "base/thread_pool.h"
#include "engine/load.h"
#include "kernels/kernels.h"
#include "perf/memory_bandwidth.h"
#include "perf/throughput.h"

namespace a3s::power::cli {
namespace {

struct BenchOptions {
  std::string model;
  int n_prompt = 512;
  int n_gen = 128;
  ModelFlags model_flags;
  DecryptFlags decrypt;
  int reps = 5;
  int batch_size = 512;
  uint64_t seed = 1234;
  std::string format = "md";
  bool membw = false;
};

constexpr size_t kBandwidthBuffer = size_t{1} << 30;

nlohmann::json to_json(const perf::Throughput& t) {
  if (t.n_tokens == 0) return nullptr;
  return {{"n_tokens", t.n_tokens},
          {"tokens_per_s", t.mean()},
          {"stddev", t.stddev()},
          {"samples", t.tokens_per_s},
          {"storage_bytes_per_token", t.bytes_per_token()},
          {"read_bytes_per_s", t.read_bandwidth()}};
}

// The memory read bandwidth of --membw: measured before the first tg repetition and after each one
// (so every repetition is compared with the bandwidth of its own moment on a shared machine), or once
// after the tests when there is no tg test or the peak RSS cannot be reset.
struct Bandwidth {
  std::vector<perf::MemoryBandwidth> samples;
  bool around_tg = false;  // samples[i] and samples[i + 1] bracket tg repetition i

  double mean() const {
    double s = 0;
    for (const auto& b : samples) s += b.bytes_per_s;
    return samples.empty() ? 0.0 : s / static_cast<double>(samples.size());
  }
  double min() const {
    return extreme([](double a, double b) { return a < b; });
  }
  double max() const {
    return extreme([](double a, double b) { return a > b; });
  }
  // Decode ceiling: bandwidth ÷ the weight bytes a token reads (ModelInfo::decode_bytes) tokens per
  // second.
  static double ceiling(double bytes_per_s, const ModelInfo& info) {
    return info.decode_bytes == 0 ? 0.0 : bytes_per_s / static_cast<double>(info.decode_bytes);
  }
  // tg ÷ ceiling: the mean over the repetitions of each one's fraction of the ceiling of the two
  // measurements around it, or tg's mean over the single measurement; nullopt without tg.
  std::optional<double> tg_fraction(const perf::Throughput& tg, const ModelInfo& info) const {
    if (tg.n_tokens == 0 || samples.empty() || ceiling(mean(), info) <= 0) return std::nullopt;
    if (!around_tg) return tg.mean() / ceiling(mean(), info);
    double sum = 0;
    for (size_t i = 0; i < tg.tokens_per_s.size(); ++i)
      sum += tg.tokens_per_s[i] / ceiling((samples[i].bytes_per_s + samples[i + 1].bytes_per_s) / 2, info);
    return sum / static_cast<double>(tg.tokens_per_s.size());
  }

 private:
  template <typename Better>
  double extreme(Better better) const {
    double v = samples.empty() ? 0.0 : samples.front().bytes_per_s;
    for (const auto& b : samples) v = better(b.bytes_per_s, v) ? b.bytes_per_s : v;
    return v;
  }
};

nlohmann::json to_json(const Bandwidth& bw, const ModelInfo& info, const perf::Throughput& tg) {
  if (bw.samples.empty()) return nullptr;
  std::vector<double> samples;
  for (const auto& b : bw.samples) samples.push_back(b.bytes_per_s);
  const auto fraction = bw.tg_fraction(tg, info);
  return {{"bytes_per_s", bw.mean()},
          {"bytes_per_s_min", bw.min()},
          {"bytes_per_s_max", bw.max()},
          {"samples", samples},
          {"around_tg", bw.around_tg},
          {"buffer_bytes", bw.samples.front().buffer_bytes},
          {"decode_bytes", info.decode_bytes},
          {"decode_ceiling_tokens_per_s", Bandwidth::ceiling(bw.mean(), info)},
          {"tg_fraction", fraction ? nlohmann::json(*fraction) : nullptr}};
}

void print_markdown(const ModelInfo& info, int threads, const perf::Throughput& pp,
                    const perf::Throughput& tg, uint64_t peak_rss, const Bandwidth& bw) {
  const double mib = static_cast<double>(info.file_size) / (1024.0 * 1024.0);
  const bool stream = info.weights == WeightsMode::Stream;
  if (pp.n_tokens > 0 || tg.n_tokens > 0) {
    std::printf("| model | type | size | params | isa | threads | weights | test | t/s |%s\n",
                stream ? " read MiB/token | read GB/s |" : "");
    std::printf("| --- | --- | ---: | ---: | --- | ---: | --- | --- | ---: |%s\n",
                stream ? " ---: | ---: |" : "");
    for (const perf::Throughput* t : {&pp, &tg}) {
      if (t->n_tokens == 0) continue;
      std::printf("| %s | %s | %.2f MiB | %.2f B | %s | %d | %s | %s%d | %.2f ± %.2f |", info.name.c_str(),
                  info.file_type.c_str(), mib, static_cast<double>(info.n_params) / 1e9,
                  kernels::isa_name(kernels::active_isa()), threads,
                  std::string(to_string(info.weights)).c_str(), t == &pp ? "pp" : "tg", t->n_tokens,
                  t->mean(), t->stddev());
      if (stream)
        std::printf(" %.2f | %.2f |", t->bytes_per_token() / (1024.0 * 1024.0), t->read_bandwidth() / 1e9);
      std::printf("\n");
    }
    std::printf("\n");
  }
  std::printf("peak RSS: %.2f MiB\n", static_cast<double>(peak_rss) / (1024.0 * 1024.0));
  if (bw.samples.empty()) return;
  std::printf("memory read bandwidth: %.2f GB/s", bw.mean() / 1e9);
  if (bw.samples.size() > 1)
    std::printf(" (mean of %zu measurements around the tg repetitions, %.2f-%.2f)", bw.samples.size(),
                bw.min() / 1e9, bw.max() / 1e9);
  std::printf(", %d threads, %.0f MiB buffer; decode ceiling: %.2f t/s", bw.samples.front().threads,
              static_cast<double>(bw.samples.front().buffer_bytes) / (1024.0 * 1024.0),
              Bandwidth::ceiling(bw.mean(), info));
  if (const auto f = bw.tg_fraction(tg, info)) std::printf("; tg at %.0f %% of it", 100.0 * *f);
  std::printf("\n");
}

void run_bench(const BenchOptions& o) {
  if (o.n_prompt < 0 || o.n_gen < 0) throw Error(codes::kInvalidArgument, "-p and -n must not be negative");
  if (o.n_prompt == 0 && o.n_gen == 0 && !o.membw)
    throw Error(codes::kInvalidArgument, "-p and -n are both 0 and no --membw: nothing to measure");
  if (o.n_prompt > 1 << 20 || o.n_gen > 1 << 20)
    throw Error(codes::kInvalidArgument, "-p and -n must be at most 1048576");
  if (o.reps < 1 || o.reps > 1000) throw Error(codes::kInvalidArgument, "-r must be in 1..1000");
  if (o.batch_size < 1 || o.batch_size > 1 << 16)
    throw Error(codes::kInvalidArgument, "--batch-size must be in 1..65536");
  ModelOptions mo = model_options(o.model_flags);
  mo.n_batch = o.batch_size;
  std::shared_ptr<Model> model =
      load_model(o.model, LoadOptions{.model = mo, .decrypt = decrypt_options(o.decrypt), .integrity = {}});
  const int threads = mo.n_threads > 0 ? mo.n_threads : ThreadPool::physical_cores();
  Context ctx(model, ContextOptions{.n_ctx = std::max(1, o.n_prompt + o.n_gen)});
  // Allocated (untouched) before the tests, so a machine that cannot spare it fails before anything
  // is measured.
  std::optional<perf::BandwidthBuffer> bw_buffer;
  if (o.membw) bw_buffer.emplace(kBandwidthBuffer);

  // Touching the buffer raises the process's peak RSS, which must stay the model's: the peak is read
  // before each measurement and reset after it (the largest value read is reported).
  uint64_t peak = 0;
  const bool can_reset_peak = o.membw && [&] {
    peak = peak_rss_bytes();
    return reset_peak_rss();
  }();
  Bandwidth bw;
  auto measure_bandwidth = [&] {
    peak = std::max(peak, peak_rss_bytes());
    ThreadPool pool(threads);
    bw.samples.push_back(perf::measure_read_bandwidth(pool, *bw_buffer, 5));
    bw_buffer->release();
    if (!reset_peak_rss())
      throw Error(codes::kInternal, "cannot reset the peak RSS after a bandwidth measurement");
  };
  bw.around_tg = can_reset_peak && o.n_gen > 0;

  perf::Throughput pp, tg;
  if (o.n_prompt > 0) pp = perf::measure_prefill(ctx, o.n_prompt, o.reps, o.seed);
  if (o.n_gen > 0)
    tg = perf::measure_decode(ctx, o.n_gen, o.reps, o.seed + 1,
                              bw.around_tg ? std::function<void()>(measure_bandwidth) : nullptr);
  peak = std::max(peak, peak_rss_bytes());
  const ModelInfo& info = model->info();
  // After the peak RSS is read: the buffer must not count as the model's memory.
  if (bw_buffer && !bw.around_tg) {
    ThreadPool pool(threads);
    bw.samples.push_back(perf::measure_read_bandwidth(pool, *bw_buffer, 5));
  }

  if (o.format == "md") {
    print_markdown(info, threads, pp, tg, peak, bw);
    return;
  }
  nlohmann::json j = {{"model", info.name},
                      {"type", info.file_type},
                      {"threads", threads},
                      {"pp", to_json(pp)},
                      {"tg", to_json(tg)},
                      {"peak_rss_bytes", peak},
                      {"size_bytes", info.file_size},
                      {"n_params", info.n_params},
                      {"isa", kernels::isa_name(kernels::active_isa())},
                      {"batch_size", info.n_batch},
                      {"weights", std::string(to_string(info.weights))},
                      {"memory_budget_bytes", info.memory_budget},
                      {"n_ctx_max", info.n_ctx_max},
                      {"reps", o.reps},
                      {"membw", to_json(bw, info, tg)}};
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace

void add_bench_command(CLI::App& root) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* sub =
      root.add_subcommand("bench", "Measure prompt-processing and generation speed (like llama-bench)");
  sub->add_option("--model,-m", o->model, "Path to a GGUF model file")->required();
  sub->add_option("-p,--n-prompt", o->n_prompt, "Prompt tokens of the pp test (0: skip)")
      ->capture_default_str();
  sub->add_option("-n,--n-gen", o->n_gen, "Generated tokens of the tg test (0: skip)")->capture_default_str();
  add_model_flags(sub, o->model_flags);
  add_decrypt_flags(sub, o->decrypt);
  sub->add_option("-r,--repetitions", o->reps, "Measured repetitions of each test")->capture_default_str();
  sub->add_option("-b,--batch-size", o->batch_size, "Prefill batch size (tokens)")->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the random tokens")->capture_default_str();
  sub->add_flag(
      "--membw", o->membw,
      "Also measure the memory read bandwidth (1 GiB buffer) and give tg as a fraction of the decode "
      "ceiling, bandwidth / the weight bytes a token reads");
  sub->add_option("--format,-o", o->format, "Output format")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  sub->callback([o] { run_bench(*o); });
}

}  // namespace a3s::power::cli

// `a3s-power bench-cache`: what the keyed prompt-prefix cache (docs/prompt-cache.md) saves on a
// running server, as cold/warm pairs of one request each.
//
//   a3s-power bench-cache [--url U] [--api-key K] [--model NAME] [--pairs 5] [--prefix-words 1500]
//                         [--format text|json]
//
// Each pair sends one streamed chat completion (max_tokens 1, temperature 0, stream_options
// include_usage) with a fresh document of --prefix-words words as the system message under a fresh
// prompt_cache_key (cold: a miss), then the same request again (warm: a hit). Reported per side: the
// median prompt evaluation the server measured (timings.prompt_eval_ms) and the median time to first
// token the client measured; and the cold/warm TTFT ratio.
//
// It measures only what it can check, and refuses otherwise:
//   - before: /health must show its details with prompt_cache.supported and neither redact_logs nor
//     suppress_token_metrics (rounded durations and counts cannot be compared exactly) → exit 2;
//   - every pair: cold cached_tokens 0, warm cached_tokens prompt_tokens - 1, the same prompt_tokens,
//     and prompt_eval_ms <= ttft_ms (server) <= the client's TTFT;
//   - after: the /metrics prompt-cache counters moved by exactly the run's hits, misses and reused
//     tokens (other keyed traffic during the run makes this fail).
// A failed check → exit 1, naming it. The documents are random words; nothing else is sent.
#include <openssl/rand.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "a3s-power/command.h"
#include "a3s-power/conversation_loop.h"
#include "a3s-power/server_flags.h"
#include "a3s/power/error.h"
#include "base/hex.h"
#include "http_client/http_client.h"
#include "http_client/http_client_built.h"
#include "a3s-power/not_built_command.h"
#include "http_client/server_error.h"

namespace a3s::power::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct BenchCacheOptions {
  ServerFlags server;
  std::string model;
  int pairs = 5;
  int prefix_words = 1500;
  std::string format = "text";
};

// One streamed request as measured.
struct Sample {
  int prompt_tokens = 0;
  int cached_tokens = -1;
  double prompt_eval_ms = -1;  // server
  double server_ttft_ms = -1;  // server
  double client_ttft_ms = -1;  // send → first content or finish chunk
};

[[noreturn]] void refuse(const std::string& why) { throw Error(codes::kInvalidArgument, "bench-cache: " + why); }
[[noreturn]] void check_failed(const std::string& why) { throw Error(codes::kInternal, "bench-cache: check failed: " + why); }

std::string random_hex(size_t bytes) {
  std::vector<uint8_t> b(bytes);
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) throw Error(codes::kInternal, "no random bytes");
  return to_hex(b);
}

// `words` words drawn from a fixed list by random bytes, after a random tag: no two documents share
// more than their first few tokens.
std::string random_document(int words) {
  static const char* const kWords[] = {"river", "stone", "ledger", "harbor", "copper", "lantern", "meadow",
                                       "signal", "orchard", "vessel", "granite", "compass", "thistle", "beacon",
                                       "quarry", "saddle", "willow", "furnace", "anchor", "parcel", "cedar",
                                       "tundra", "mosaic", "pillar", "canyon", "ember", "falcon", "glacier",
                                       "hollow", "island", "juniper", "kernel"};
  std::vector<uint8_t> r(static_cast<size_t>(words));
  if (!r.empty() && RAND_bytes(r.data(), static_cast<int>(r.size())) != 1) throw Error(codes::kInternal, "no random bytes");
  std::string doc = "Document " + random_hex(8) + ".";
  for (int i = 0; i < words; ++i) {
    doc += ' ';
    doc += kWords[r[static_cast<size_t>(i)] % (sizeof kWords / sizeof *kWords)];
  }
  return doc;
}

double number_at(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : -1;
}

Sample measure(client::HttpClient& http, const json& body) {
  Sample s;
  const Clock::time_point sent = Clock::now();
  bool done = false;
  http.post_stream("/v1/chat/completions", body, [&](const client::SseEvent& e) {
    if (e.data == "[DONE]") {
      done = true;
      return false;
    }
    json chunk = json::parse(e.data, nullptr, false);
    if (!chunk.is_object()) check_failed("a stream chunk is not a JSON object");
    if (chunk.contains("error")) throw client::ServerError(200, "", "the server reported an error mid-stream");
    if (s.client_ttft_ms < 0 && chunk.contains("choices") && chunk["choices"].is_array() && !chunk["choices"].empty()) {
      const json& c = chunk["choices"][0];
      const bool content = c.contains("delta") && c["delta"].contains("content") && c["delta"]["content"].is_string() &&
                           !c["delta"]["content"].get_ref<const std::string&>().empty();
      const bool finish = c.contains("finish_reason") && !c["finish_reason"].is_null();
      if (content || finish) s.client_ttft_ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
    }
    if (chunk.contains("usage") && chunk["usage"].is_object()) {
      const json& u = chunk["usage"];
      s.prompt_tokens = static_cast<int>(number_at(u, "prompt_tokens"));
      if (u.contains("prompt_tokens_details")) s.cached_tokens = static_cast<int>(number_at(u["prompt_tokens_details"], "cached_tokens"));
      if (chunk.contains("timings")) {
        s.prompt_eval_ms = number_at(chunk["timings"], "prompt_eval_ms");
        s.server_ttft_ms = number_at(chunk["timings"], "ttft_ms");
      }
    }
    return true;
  });
  if (!done) check_failed("the stream ended without [DONE]");
  if (s.prompt_tokens <= 0 || s.cached_tokens < 0) check_failed("the usage chunk has no prompt_tokens_details.cached_tokens");
  if (s.prompt_eval_ms < 0 || s.server_ttft_ms < 0) check_failed("the usage chunk has no timings");
  if (s.client_ttft_ms < 0) check_failed("no token arrived");
  return s;
}

// The prompt-cache counters of /metrics.
struct Counters {
  double requests = -1, hits = -1, misses = -1, reused = -1;
};

Counters counters(client::HttpClient& http) {
  client::HttpResponse r = http.get("/metrics");
  if (r.status != 200) refuse("GET /metrics answered HTTP " + std::to_string(r.status) + " (an API key may be needed)");
  auto value = [&](const std::string& series) {
    const size_t at = r.body.find("\n" + series + " ");
    if (at == std::string::npos) refuse("/metrics has no " + series);
    return std::strtod(r.body.c_str() + at + series.size() + 2, nullptr);
  };
  Counters c;
  c.requests = value("a3s_power_prompt_cache_requests_total");
  c.hits = value("a3s_power_prompt_cache_hits_total");
  c.misses = value("a3s_power_prompt_cache_misses_total");
  c.reused = value("a3s_power_prompt_cache_reused_tokens_total");
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The model to use: --model, else the first loaded model /health lists, else the first one.
std::string model_of(const json& health, const std::string& wanted) {
  if (!wanted.empty()) return wanted;
  std::string first;
  for (const json& m : health["models"]) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) continue;
    if (m.value("loaded", false)) return m["name"].get<std::string>();
    if (first.empty()) first = m["name"].get<std::string>();
  }
  if (first.empty()) refuse("the server serves no model (give --model)");
  return first;
}

void run_bench_cache(const BenchCacheOptions& o) {
  if (o.pairs < 1 || o.pairs > 1000) refuse("--pairs must be 1..1000");
  if (o.prefix_words < 1 || o.prefix_words > 100000) refuse("--prefix-words must be 1..100000");
  client::HttpClient http(client_options(o.server));

  const json health = http.get_json("/health");
  if (!health.contains("prompt_cache") || !health.contains("privacy") || !health.contains("models"))
    refuse("/health shows no details (give an API key, or the server predates the prompt cache)");
  if (!health["prompt_cache"].value("supported", false)) refuse("the server's prompt cache is off (prompt_cache_mb = 0)");
  if (health["privacy"].value("redact_logs", true) || health["privacy"].value("suppress_token_metrics", true))
    refuse("the server rounds durations or token counts (redact_logs / suppress_token_metrics): an exact "
           "benchmark needs both off");
  const std::string model = model_of(health, o.model);

  const Counters before = counters(http);
  std::vector<double> cold_eval, warm_eval, cold_ttft, warm_ttft;
  double reused = 0;
  int prompt_tokens = 0;
  for (int i = 0; i < o.pairs; ++i) {
    json body = {{"model", model},
                 {"messages", {{{"role", "system"}, {"content", random_document(o.prefix_words)}},
                               {{"role", "user"}, {"content", "Summarise the document in one word."}}}},
                 {"max_tokens", 1},
                 {"temperature", 0},
                 {"stream", true},
                 {"stream_options", {{"include_usage", true}}},
                 {"prompt_cache_key", "bench-cache-" + random_hex(16)}};
    const Sample cold = measure(http, body);
    const Sample warm = measure(http, body);
    const std::string pair = "pair " + std::to_string(i + 1) + ": ";
    if (cold.cached_tokens != 0) check_failed(pair + "the cold request reused " + std::to_string(cold.cached_tokens) + " tokens");
    if (warm.prompt_tokens != cold.prompt_tokens) check_failed(pair + "the two requests have different prompt_tokens");
    if (warm.cached_tokens != warm.prompt_tokens - 1)
      check_failed(pair + "the warm request reused " + std::to_string(warm.cached_tokens) + " of " +
                   std::to_string(warm.prompt_tokens) + " prompt tokens (expected all but the last)");
    for (const Sample* s : {&cold, &warm}) {
      if (s->prompt_eval_ms > s->server_ttft_ms || s->server_ttft_ms > s->client_ttft_ms)
        check_failed(pair + "timings out of order (prompt_eval_ms <= ttft_ms <= the client's TTFT)");
    }
    cold_eval.push_back(cold.prompt_eval_ms);
    warm_eval.push_back(warm.prompt_eval_ms);
    cold_ttft.push_back(cold.client_ttft_ms);
    warm_ttft.push_back(warm.client_ttft_ms);
    reused += warm.cached_tokens;
    prompt_tokens = cold.prompt_tokens;
  }
  const Counters after = counters(http);
  if (after.requests - before.requests != 2.0 * o.pairs || after.hits - before.hits != o.pairs ||
      after.misses - before.misses != o.pairs || after.reused - before.reused != reused)
    check_failed("the /metrics prompt-cache counters did not move by this run's hits, misses and reused tokens "
                 "(other keyed traffic during the run?)");

  const double ratio = median(cold_ttft) / std::max(median(warm_ttft), 1e-9);
  if (o.format == "json") {
    json out = {{"model", model},
                {"pairs", o.pairs},
                {"prompt_tokens", prompt_tokens},
                {"cached_tokens", prompt_tokens - 1},
                {"cold", {{"prompt_eval_ms", median(cold_eval)}, {"ttft_ms", median(cold_ttft)}}},
                {"warm", {{"prompt_eval_ms", median(warm_eval)}, {"ttft_ms", median(warm_ttft)}}},
                {"ttft_ratio", ratio},
                {"checks", "passed"}};
    client::write_stdout(out.dump(2) + "\n");
    return;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "model %s, %d pairs, prompt %d tokens (warm: %d reused)\n"
                "                      cold        warm\n"
                "prompt eval ms  %11.2f %11.2f   (server, median)\n"
                "TTFT ms         %11.2f %11.2f   (client, median)\n"
                "TTFT cold/warm  %.1fx\n"
                "checks: usage, timings and /metrics counters agree\n",
                model.c_str(), o.pairs, prompt_tokens, prompt_tokens - 1, median(cold_eval), median(warm_eval),
                median(cold_ttft), median(warm_ttft), ratio);
  client::write_stdout(buf);
}

}  // namespace

void add_bench_cache_command(CLI::App& root) {
  constexpr const char* kDescription =
      "Measure what the prompt-prefix cache saves on a running server (cold/warm pairs)";
  if (!client::http_client_built()) {
    add_not_built_command(root, "bench-cache", kDescription, "built without libcurl");
    return;
  }
  auto o = std::make_shared<BenchCacheOptions>();
  CLI::App* sub = root.add_subcommand("bench-cache", kDescription);
  add_server_flags(sub, o->server);
  sub->add_option("--model,-m", o->model, "Served model name (default: the first loaded one)");
  sub->add_option("--pairs", o->pairs, "Cold/warm request pairs")->capture_default_str();
  sub->add_option("--prefix-words", o->prefix_words, "Words of each pair's shared document")->capture_default_str();
  sub->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  sub->callback([o] { run_bench_cache(*o); });
}

}  // namespace a3s::power::cli

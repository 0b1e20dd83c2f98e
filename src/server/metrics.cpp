#include "server/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace a3s::power::server {
namespace {
const std::vector<double> kDurationBounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
const std::vector<double> kTtftBounds = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}  // namespace

void Histogram::observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += v;
  ++count_;
}

std::string PrometheusWriter::escape_label(const std::string& v) {
  std::string o;
  o.reserve(v.size());
  for (char c : v) {
    if (c == '\\') o += "\\\\";
    else if (c == '"') o += "\\\"";
    else if (c == '\n') o += "\\n";
    else o += c;
  }
  return o;
}

std::string PrometheusWriter::format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  // Shortest decimal that reads back as the same double.
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

void PrometheusWriter::family(const std::string& name, const std::string& type, const std::string& help) {
  out_ += "# HELP " + name + " " + help + "\n";
  out_ += "# TYPE " + name + " " + type + "\n";
}

void PrometheusWriter::sample(const std::string& name, const Labels& labels, double value) {
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) out_ += ',';
      out_ += labels[i].first + "=\"" + escape_label(labels[i].second) + "\"";
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += format_value(value);
  out_ += '\n';
}

void PrometheusWriter::histogram(const std::string& name, const Labels& labels, const Histogram& h) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= h.bounds().size(); ++i) {
    cumulative += h.counts()[i];
    Labels l = labels;
    l.emplace_back("le", i < h.bounds().size() ? format_value(h.bounds()[i]) : "+Inf");
    sample(name + "_bucket", l, static_cast<double>(cumulative));
  }
  sample(name + "_sum", labels, h.sum());
  sample(name + "_count", labels, static_cast<double>(h.count()));
}

Metrics::Metrics() = default;

void Metrics::record_request(const std::string& /*method*/, const std::string& route, int status,
                             double seconds) {
  std::lock_guard lk(mu_);
  ++requests_[{route, std::to_string(status)}];
  durations_.try_emplace(route, kDurationBounds).first->second.observe(seconds);
}

void Metrics::record_ttft(const std::string& route, double seconds) {
  std::lock_guard lk(mu_);
  ttft_.try_emplace(route, kTtftBounds).first->second.observe(seconds);
}

void Metrics::record_tokens(int prompt_tokens, int completion_tokens) {
  std::lock_guard lk(mu_);
  if (prompt_tokens > 0) prompt_tokens_ += static_cast<uint64_t>(prompt_tokens);
  if (completion_tokens > 0) completion_tokens_ += static_cast<uint64_t>(completion_tokens);
}

void Metrics::record_prompt_cache_tokens(int reused_tokens, int evaluated_tokens) {
  std::lock_guard lk(mu_);
  if (reused_tokens > 0) cache_reused_tokens_ += static_cast<uint64_t>(reused_tokens);
  if (evaluated_tokens > 0) cache_evaluated_tokens_ += static_cast<uint64_t>(evaluated_tokens);
}

void Metrics::record_attestation(bool ok) {
  std::lock_guard lk(mu_);
  ++(ok ? attestations_ok_ : attestations_failed_);
}

void Metrics::record_integrity_failure() {
  std::lock_guard lk(mu_);
  ++integrity_failures_;
}

std::string Metrics::render(const GaugeSnapshot& g) const {
  std::lock_guard lk(mu_);
  PrometheusWriter w;
  w.family("a3s_power_http_requests_total", "counter", "HTTP requests by route template and status.");
  for (auto& [key, n] : requests_) {
    w.sample("a3s_power_http_requests_total", {{"route", key.first}, {"status", key.second}},
             static_cast<double>(n));
  }
  w.family("a3s_power_http_request_duration_seconds", "histogram",
           "Time from request received to response complete.");
  for (auto& [route, h] : durations_) w.histogram("a3s_power_http_request_duration_seconds", {{"route", route}}, h);
  w.family("a3s_power_time_to_first_token_seconds", "histogram",
           "Time from request received to the first generated token.");
  for (auto& [route, h] : ttft_) w.histogram("a3s_power_time_to_first_token_seconds", {{"route", route}}, h);
  w.family("a3s_power_prompt_tokens_total", "counter", "Prompt tokens processed.");
  w.sample("a3s_power_prompt_tokens_total", {}, static_cast<double>(prompt_tokens_));
  w.family("a3s_power_completion_tokens_total", "counter", "Completion tokens generated.");
  w.sample("a3s_power_completion_tokens_total", {}, static_cast<double>(completion_tokens_));
  w.family("a3s_power_attestations_total", "counter", "Attestation requests by result.");
  w.sample("a3s_power_attestations_total", {{"result", "ok"}}, static_cast<double>(attestations_ok_));
  w.sample("a3s_power_attestations_total", {{"result", "error"}}, static_cast<double>(attestations_failed_));
  w.family("a3s_power_integrity_failures_total", "counter",
           "Models refused because their bytes failed a pin, signature or authentication check.");
  w.sample("a3s_power_integrity_failures_total", {}, static_cast<double>(integrity_failures_));
  w.family("a3s_power_active_requests", "gauge", "Generations running in a slot.");
  w.sample("a3s_power_active_requests", {}, g.active_requests);
  w.family("a3s_power_queued_requests", "gauge", "Generations waiting for a slot.");
  w.sample("a3s_power_queued_requests", {}, g.queued_requests);
  w.family("a3s_power_generation_slots", "gauge", "Configured generation slots.");
  w.sample("a3s_power_generation_slots", {}, g.slots);
  w.family("a3s_power_models_loaded", "gauge", "Models loaded in memory.");
  w.sample("a3s_power_models_loaded", {}, g.models_loaded);
  // vLLM's names, so dashboards built for it read these too.
  int64_t kv_waiting = 0;
  for (const auto& [name, kv] : g.kv_caches) kv_waiting += kv.waiting;
  w.family("vllm:num_requests_running", "gauge", "Requests evaluating or generating.");
  w.sample("vllm:num_requests_running", {}, static_cast<double>(std::max<int64_t>(0, g.active_requests - kv_waiting)));
  w.family("vllm:num_requests_waiting", "gauge", "Requests waiting for a slot or for KV cache blocks.");
  w.sample("vllm:num_requests_waiting", {}, static_cast<double>(g.queued_requests + kv_waiting));
  if (!g.kv_caches.empty()) {
    w.family("a3s_power_kv_cache_blocks_total", "gauge", "KV cache blocks per model (0: no limit).");
    for (const auto& [name, kv] : g.kv_caches)
      w.sample("a3s_power_kv_cache_blocks_total", {{"model", name}}, static_cast<double>(kv.blocks_total));
    w.family("a3s_power_kv_cache_blocks_wiped_total", "counter", "KV cache blocks wiped and freed.");
    for (const auto& [name, kv] : g.kv_caches)
      w.sample("a3s_power_kv_cache_blocks_wiped_total", {{"model", name}}, static_cast<double>(kv.blocks_wiped));
    if (g.exact_sizes) {
      w.family("a3s_power_kv_cache_blocks", "gauge", "KV cache blocks held or reserved, per model.");
      for (const auto& [name, kv] : g.kv_caches) {
        w.sample("a3s_power_kv_cache_blocks", {{"model", name}, {"state", "in_use"}}, static_cast<double>(kv.blocks_in_use));
        w.sample("a3s_power_kv_cache_blocks", {{"model", name}, {"state", "reserved"}},
                 static_cast<double>(kv.blocks_reserved));
      }
      w.family("vllm:kv_cache_usage_perc", "gauge", "Fraction of KV cache blocks held or reserved (0 to 1).");
      for (const auto& [name, kv] : g.kv_caches) {
        const double used = kv.blocks_total > 0
                                ? static_cast<double>(kv.blocks_in_use + kv.blocks_reserved) / static_cast<double>(kv.blocks_total)
                                : 0.0;
        w.sample("vllm:kv_cache_usage_perc", {{"model_name", name}}, used);
      }
    }
  }
  if (const runtime::PromptCacheStats* c = g.prompt_cache) {
    auto counter = [&](const char* name, const char* help, double v) {
      w.family(name, "counter", help);
      w.sample(name, {}, v);
    };
    counter("a3s_power_prompt_cache_requests_total", "Requests with prompt_cache_key that consulted the cache.",
            static_cast<double>(c->requests));
    counter("a3s_power_prompt_cache_hits_total", "Prompt-cache lookups that reused a cached prefix.",
            static_cast<double>(c->hits));
    counter("a3s_power_prompt_cache_misses_total", "Prompt-cache lookups that found no usable prefix.",
            static_cast<double>(c->misses));
    counter("a3s_power_prompt_cache_reused_tokens_total", "Prompt tokens restored from the prompt cache.",
            static_cast<double>(cache_reused_tokens_));
    counter("a3s_power_prompt_cache_evaluated_tokens_total",
            "Prompt tokens of requests with prompt_cache_key that were evaluated.",
            static_cast<double>(cache_evaluated_tokens_));
    counter("a3s_power_prompt_cache_evictions_total",
            "Prompt-cache entries removed by the per-identity limit, expiry or model unload.",
            static_cast<double>(c->evictions));
    w.family("a3s_power_prompt_cache_entries", "gauge", "Prompt-cache entries held.");
    w.sample("a3s_power_prompt_cache_entries", {}, static_cast<double>(c->resident));
    if (g.exact_sizes) {
      w.family("a3s_power_prompt_cache_bytes", "gauge", "KV snapshot bytes the prompt cache holds.");
      w.sample("a3s_power_prompt_cache_bytes", {}, static_cast<double>(c->bytes));
    }
  }
  return w.text();
}

}  // namespace a3s::power::server

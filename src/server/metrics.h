// Server metrics in the Prometheus text exposition format (version 0.0.4; see the Prometheus
// documentation "Exposition formats"). Route labels are route templates ("/v1/models/{id}") or
// "unmatched", never raw paths, so label cardinality stays bounded. No user text is recorded.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/prompt_cache.h"

namespace a3s::power::server {

// A fixed-bucket histogram (upper bounds in seconds, ascending; +Inf implied).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}
  void observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  const std::vector<uint64_t>& counts() const { return counts_; }  // per bucket (not cumulative)
  double sum() const { return sum_; }
  uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

// Writes families and samples in the text format: "# HELP", "# TYPE", then samples with escaped
// label values.
class PrometheusWriter {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  void family(const std::string& name, const std::string& type, const std::string& help);
  void sample(const std::string& name, const Labels& labels, double value);
  void histogram(const std::string& name, const Labels& labels, const Histogram& h);
  const std::string& text() const { return out_; }

  static std::string escape_label(const std::string& v);
  static std::string format_value(double v);

 private:
  std::string out_;
};

// Live gauges sampled at scrape time.
struct GaugeSnapshot {
  int active_requests = 0;  // generations holding a slot
  int queued_requests = 0;  // generations waiting for a slot
  int models_loaded = 0;
  int slots = 0;
  // The prompt-prefix cache's counters (null: no cache). Its resident bytes are shown only when
  // `exact_sizes` (they track token counts: not under suppress_token_metrics).
  const runtime::PromptCacheStats* prompt_cache = nullptr;
  bool exact_sizes = true;
  // Each loaded model's KV block pool. Blocks in use track token counts (32 positions a block), so
  // they and the usage ratio are shown only when `exact_sizes`.
  std::vector<std::pair<std::string, KvCacheStats>> kv_caches;
};

class Metrics {
 public:
  Metrics();
  void record_request(const std::string& method, const std::string& route, int status, double seconds);
  void record_ttft(const std::string& route, double seconds);
  void record_tokens(int prompt_tokens, int completion_tokens);
  // One request with prompt_cache_key: prompt tokens restored from the cache and evaluated, as shown
  // (rounded under suppress_token_metrics).
  void record_prompt_cache_tokens(int reused_tokens, int evaluated_tokens);
  void record_attestation(bool ok);  // GET /v1/attestation answered with evidence (ok) or failed
  void record_integrity_failure();   // a model refused for its bytes (pin, signature, authentication)
  std::string render(const GaugeSnapshot& g) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> requests_;  // (route, status) → count
  std::map<std::string, Histogram> durations_;                        // route → seconds
  std::map<std::string, Histogram> ttft_;                              // route → seconds
  uint64_t prompt_tokens_ = 0, completion_tokens_ = 0;
  uint64_t cache_reused_tokens_ = 0, cache_evaluated_tokens_ = 0;
  uint64_t attestations_ok_ = 0, attestations_failed_ = 0, integrity_failures_ = 0;
};

}  // namespace a3s::power::server

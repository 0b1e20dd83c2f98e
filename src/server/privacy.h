// Token counts and durations as they leave the process (docs/privacy.md, "Token counts" and
// "Durations").
//
// With suppress_token_metrics every count the server reports — response `usage` and the final
// streaming usage chunk, the /metrics token counters and the per-request log line — is rounded to the
// nearest 10 by round_token_count(). A total is always the sum of the rounded parts, so no exact
// count can be recovered by subtraction. Without it, counts are exact.
#pragma once

#include <cstdint>

namespace a3s::power::server {

// Nearest multiple of 10, halves up: ((n + 5) / 10) * 10. Negative n (no count) is returned as is.
constexpr int64_t round_token_count(int64_t n) { return n < 0 ? n : (n + 5) / 10 * 10; }

// The prompt and completion counts of one request as reported.
struct ShownTokenCounts {
  int prompt = 0;
  int completion = 0;
  int total() const { return prompt + completion; }
};

// Rounds both counts when `suppress` is set, else passes them through. -1 (no count) stays -1.
constexpr ShownTokenCounts shown_token_counts(int prompt, int completion, bool suppress) {
  if (!suppress) return {prompt, completion};
  return {static_cast<int>(round_token_count(prompt)), static_cast<int>(round_token_count(completion))};
}

// Durations as reported (the log line's duration_ms, the /metrics duration and TTFT histograms). With
// redact_logs a duration is rounded up to a power of two milliseconds (1, 2, 4, … ms), so that a
// request's time — which tracks its token counts — cannot be read to 0.1 ms. Seconds in, seconds out.
inline double shown_duration_seconds(double seconds, bool redact) {
  if (!redact) return seconds;
  double ms = 1.0;
  while (ms < seconds * 1000.0 && ms < 1e12) ms *= 2.0;
  return ms / 1000.0;
}

}  // namespace a3s::power::server

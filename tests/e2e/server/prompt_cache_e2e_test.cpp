// End-to-end: the keyed prompt-prefix cache (docs/prompt-cache.md) through the real server binary
// with the real stories260K model and two API-key identities. A repeated keyed request reuses its
// prompt (usage.prompt_tokens_details.cached_tokens) and answers exactly what the uncached request
// answers; a longer prompt with the same start is a partial hit; another identity with the same key
// misses and never evicts the first identity's entry; the per-identity limit evicts by LRU; entries
// expire after the TTL; /metrics counts requests, hits, misses, reused and evaluated tokens and
// evictions; /health shows the configured cache; streamed usage carries the cached tokens and the
// prompt-evaluation time apart from the time to first token.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/http_client.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace prompt_cache_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;
using namespace std::chrono_literals;

// A system prompt long enough that the reused prefix is most of the prompt.
const char* kSystem =
    "You are a careful storyteller. Every story has a girl named Lily, a dog named Max, a red ball, "
    "a sunny park, a big tree and a happy ending where everyone shares.";

json chat(const std::string& user, json extra = json::object()) {
  json j = {{"model", "stories260K"},
            {"messages", {{{"role", "system"}, {"content", kSystem}}, {{"role", "user"}, {"content", user}}}},
            {"temperature", 0},
            {"max_tokens", 16}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  return j;
}

HttpOptions as(const std::string& key) {
  HttpOptions o;
  o.headers = {"Authorization: Bearer " + key};
  return o;
}

struct Answer {
  int status = 0;
  std::string text;
  int prompt_tokens = 0;
  int cached_tokens = -1;
  json body;
};

Answer ask(const ServerProcess& s, const json& body, const std::string& key) {
  HttpResult r = http("POST", s.url("/v1/chat/completions"), body.dump(), as(key));
  Answer a;
  a.status = r.status;
  a.body = json::parse(r.body, nullptr, false);
  if (r.status == 200) {
    a.text = a.body["choices"][0]["message"]["content"].get<std::string>();
    a.prompt_tokens = a.body["usage"]["prompt_tokens"].get<int>();
    a.cached_tokens = a.body["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>();
  }
  return a;
}

double metric(const ServerProcess& s, const std::string& series) {
  std::string t = http("GET", s.url("/metrics"), "", as("sk-alice")).body;
  auto pos = t.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(t.substr(pos + series.size() + 2));
}

std::string config(TempDir& dir, const std::string& extra) {
  return dir.write("power.hcl",
                   "api_key \"alice\" { key = \"sk-alice\" }\napi_key \"bob\" { key = \"sk-bob\" }\n"
                   "metrics_public = true\n" + extra);
}

TEST(PromptCacheE2E, HitsPartialHitsIdentitiesAndLruEviction) {
  TempDir dir;
  ServerProcess s({"--config", config(dir, "prompt_cache_max_entries = 1\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();

  json h = json::parse(http("GET", s.url("/health"), "", as("sk-alice")).body);
  EXPECT_EQ(h["prompt_cache"], (json{{"supported", true}, {"max_entries", 1}, {"ttl_seconds", 300.0}, {"max_mb", 256}}));
  EXPECT_EQ(h["privacy"], (json{{"redact_logs", false}, {"suppress_token_metrics", false}}));
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_requests_total"), 0);

  // The uncached answers every cached one must equal.
  const Answer plain = ask(s, chat("Tell me a story."), "sk-alice");
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(plain.cached_tokens, 0);
  ASSERT_GT(plain.prompt_tokens, 40);
  const json longer_body = chat("Tell me a story.", {{"messages", {{{"role", "system"}, {"content", kSystem}},
                                                                    {{"role", "user"}, {"content", "Tell me a story."}},
                                                                    {{"role", "assistant"}, {"content", "Lily ran."}},
                                                                    {{"role", "user"}, {"content", "More!"}}}}});
  const Answer longer_plain = ask(s, longer_body, "sk-alice");
  ASSERT_EQ(longer_plain.status, 200);

  json keyed = chat("Tell me a story.", {{"prompt_cache_key", "doc-1"}});
  const Answer miss = ask(s, keyed, "sk-alice");
  ASSERT_EQ(miss.status, 200) << miss.body;
  EXPECT_EQ(miss.cached_tokens, 0);
  EXPECT_EQ(miss.text, plain.text);

  const Answer hit = ask(s, keyed, "sk-alice");
  ASSERT_EQ(hit.status, 200);
  EXPECT_EQ(hit.cached_tokens, hit.prompt_tokens - 1) << "all but the last prompt token come from the cache";
  EXPECT_EQ(hit.text, plain.text) << "cached and uncached greedy output are identical";
  EXPECT_EQ(hit.prompt_tokens, plain.prompt_tokens);
  EXPECT_TRUE(hit.body["timings"]["prompt_eval_ms"].is_number());

  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_requests_total"), 2);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_hits_total"), 1);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_misses_total"), 1);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_reused_tokens_total"), hit.cached_tokens);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_evaluated_tokens_total"), plain.prompt_tokens + 1);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_entries"), 1);
  EXPECT_GT(metric(s, "a3s_power_prompt_cache_bytes"), 0);

  // A longer conversation with the same start: a partial hit, the same answer as uncached.
  json longer = longer_body;
  longer["prompt_cache_key"] = "doc-1";
  const Answer partial = ask(s, longer, "sk-alice");
  ASSERT_EQ(partial.status, 200);
  EXPECT_GT(partial.cached_tokens, 40);
  EXPECT_LT(partial.cached_tokens, partial.prompt_tokens - 1);
  EXPECT_EQ(partial.text, longer_plain.text);

  // Bob sends Alice's key: a miss (the scope includes the identity), and storing his entry does not
  // evict Alice's.
  const Answer bob = ask(s, keyed, "sk-bob");
  ASSERT_EQ(bob.status, 200);
  EXPECT_EQ(bob.cached_tokens, 0);
  EXPECT_EQ(bob.text, plain.text);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_entries"), 2);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_evictions_total"), 0);
  EXPECT_GT(ask(s, longer, "sk-alice").cached_tokens, 40);

  // Streamed, with usage: the cached tokens and both timings in the last chunk.
  json streamed = longer;
  streamed["stream"] = true;
  streamed["stream_options"] = {{"include_usage", true}};
  HttpResult sr = http("POST", s.url("/v1/chat/completions"), streamed.dump(), as("sk-alice"));
  ASSERT_EQ(sr.status, 200);
  std::vector<std::string> events;
  std::string problem;
  ASSERT_TRUE(split_sse(sr.body, events, problem)) << problem;
  ASSERT_GE(events.size(), 2u);
  const json usage_chunk = json::parse(events[events.size() - 2]);
  EXPECT_EQ(usage_chunk["usage"]["prompt_tokens_details"]["cached_tokens"], partial.prompt_tokens - 1);
  const json& t = usage_chunk["timings"];
  ASSERT_TRUE(t["prompt_eval_ms"].is_number() && t["ttft_ms"].is_number()) << usage_chunk.dump();
  EXPECT_GE(t["prompt_eval_ms"].get<double>(), 0);
  EXPECT_GE(t["ttft_ms"].get<double>(), t["prompt_eval_ms"].get<double>()) << "TTFT includes the prompt evaluation";

  // Alice's limit is one entry: a second key evicts her first (by LRU), never Bob's.
  const double evictions = metric(s, "a3s_power_prompt_cache_evictions_total");
  ASSERT_EQ(ask(s, chat("Tell me a story.", {{"prompt_cache_key", "doc-2"}}), "sk-alice").cached_tokens, 0);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_evictions_total"), evictions + 1);
  EXPECT_EQ(ask(s, keyed, "sk-alice").cached_tokens, 0) << "doc-1 was evicted";
  EXPECT_EQ(ask(s, keyed, "sk-bob").cached_tokens, bob.prompt_tokens - 1) << "Bob's entry is untouched";

  // A keyed text completion has its own scope (the endpoint is part of it).
  json text = {{"model", "stories260K"}, {"prompt", kSystem}, {"max_tokens", 4}, {"temperature", 0},
               {"prompt_cache_key", "doc-1"}};
  HttpResult t1 = http("POST", s.url("/v1/completions"), text.dump(), as("sk-bob"));
  ASSERT_EQ(t1.status, 200) << t1.body;
  EXPECT_EQ(json::parse(t1.body)["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  HttpResult t2 = http("POST", s.url("/v1/completions"), text.dump(), as("sk-bob"));
  EXPECT_GT(json::parse(t2.body)["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), 0);

  EXPECT_EQ(s.stop(), 0);
  EXPECT_EQ(s.log().find("doc-1"), std::string::npos) << "the key is never logged";
}

TEST(PromptCacheE2E, EntriesExpireAfterTheTtl) {
  TempDir dir;
  ServerProcess s({"--config", config(dir, "prompt_cache_ttl_seconds = 1\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  json keyed = chat("Tell me a story.", {{"prompt_cache_key", "ttl"}});
  ASSERT_EQ(ask(s, keyed, "sk-alice").cached_tokens, 0);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_entries"), 1);
  // The sweeper removes the entry once it is a second old; wait for it (generously).
  for (int i = 0; i < 100 && metric(s, "a3s_power_prompt_cache_entries") != 0; ++i) std::this_thread::sleep_for(100ms);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_entries"), 0);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_evictions_total"), 1);
  EXPECT_EQ(ask(s, keyed, "sk-alice").cached_tokens, 0) << "an expired entry is never used";
  EXPECT_EQ(s.stop(), 0);
}

TEST(PromptCacheE2E, SuppressedMetricsRoundTheCountsAndHideTheBytes) {
  TempDir dir;
  ServerProcess s({"--config", config(dir, "suppress_token_metrics = true\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  json keyed = chat("Tell me a story.", {{"prompt_cache_key", "k"}});
  ASSERT_EQ(ask(s, keyed, "sk-alice").status, 200);
  const Answer hit = ask(s, keyed, "sk-alice");
  ASSERT_EQ(hit.status, 200);
  EXPECT_EQ(hit.cached_tokens % 10, 0);
  EXPECT_GT(hit.cached_tokens, 0);
  EXPECT_EQ(hit.prompt_tokens % 10, 0);
  EXPECT_EQ(static_cast<int64_t>(metric(s, "a3s_power_prompt_cache_reused_tokens_total")) % 10, 0);
  EXPECT_EQ(static_cast<int64_t>(metric(s, "a3s_power_prompt_cache_evaluated_tokens_total")) % 10, 0);
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_bytes"), -1) << "snapshot bytes track token counts";
  EXPECT_EQ(metric(s, "a3s_power_prompt_cache_hits_total"), 1);
  EXPECT_EQ(s.stop(), 0);
}

}  // namespace prompt_cache_e2e
}  // namespace a3s::power::testing

// `a3s-power bench-cache` against the real server with stories260K: cold/warm pairs whose checks
// pass and whose JSON report says what was reused; refused (exit 2, naming why) when the server
// rounds its counts, has the cache off, or hides /health's details from a caller without a key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_process.h"

namespace a3s::power::client_cli {
namespace bench_cache_test {

using nlohmann::json;

TEST(CliBenchCache, PairsReportReuseAndPassTheirChecks) {
  ServerProcess server({"--model", stories_model()}, {{"A3S_POWER_API_KEYS", "sk-bench"}});
  ASSERT_TRUE(server.ready()) << server.log();
  const std::vector<std::string> args = {"bench-cache", "--url",         server.url(), "--pairs",
                                         "2",           "--prefix-words", "60",         "--format", "json"};
  CliResult r = run_cli(args, "", {{"A3S_POWER_API_KEY", "sk-bench"}});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["model"], "stories260K");
  EXPECT_EQ(j["pairs"], 2);
  EXPECT_GT(j["prompt_tokens"].get<int>(), 60);
  EXPECT_EQ(j["cached_tokens"], j["prompt_tokens"].get<int>() - 1);
  EXPECT_EQ(j["checks"], "passed");
  for (const char* side : {"cold", "warm"}) {
    EXPECT_GE(j[side]["prompt_eval_ms"].get<double>(), 0) << side;
    EXPECT_GE(j[side]["ttft_ms"].get<double>(), j[side]["prompt_eval_ms"].get<double>()) << side;
  }
  EXPECT_GT(j["ttft_ratio"].get<double>(), 0);

  // The text report names the figures.
  CliResult text = run_cli({"bench-cache", "--url", server.url(), "--pairs", "1", "--prefix-words", "20"}, "",
                           {{"A3S_POWER_API_KEY", "sk-bench"}});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("TTFT cold/warm"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("checks: usage, timings and /metrics counters agree"), std::string::npos) << text.out;

  // Without the key /health shows no details: refused, not guessed.
  CliResult no_key = run_cli(args);
  EXPECT_EQ(no_key.status, 2) << no_key.err;
  EXPECT_NE(no_key.err.find("/health shows no details"), std::string::npos) << no_key.err;
  // Bad flags.
  EXPECT_EQ(run_cli({"bench-cache", "--url", server.url(), "--pairs", "0"}).status, 2);
  EXPECT_EQ(run_cli({"bench-cache", "--url", server.url(), "--format", "xml"}).status, 2);
}

TEST(CliBenchCache, RefusesRoundedMetricsAndAServerWithoutACache) {
  for (const auto& [variable, expected] :
       {std::pair<std::string, std::string>{"A3S_POWER_SUPPRESS_TOKEN_METRICS", "an exact benchmark needs both off"},
        std::pair<std::string, std::string>{"A3S_POWER_REDACT_LOGS", "an exact benchmark needs both off"}}) {
    ServerProcess server({"--model", stories_model()}, {{variable, "1"}});
    ASSERT_TRUE(server.ready()) << server.log();
    CliResult r = run_cli({"bench-cache", "--url", server.url(), "--pairs", "1"});
    EXPECT_EQ(r.status, 2) << variable << ": " << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
  ServerProcess off({"--model", stories_model()}, {{"A3S_POWER_PROMPT_CACHE_MB", "0"}});
  ASSERT_TRUE(off.ready()) << off.log();
  CliResult r = run_cli({"bench-cache", "--url", off.url(), "--pairs", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("prompt cache is off"), std::string::npos) << r.err;
}

}  // namespace bench_cache_test
}  // namespace a3s::power::client_cli

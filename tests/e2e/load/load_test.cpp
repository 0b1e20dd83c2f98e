// Load: 32 concurrent streaming clients × 5 requests each against the real server and model
// (loopback only). Every response must be complete and well-formed SSE, no 5xx, and the server's
// resident memory must come back to within 10% of its level before the load.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/http_client.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Outcome {
  long status = 0;
  bool well_formed = false;
  std::string problem;
};

Outcome stream_once(const ServerProcess& s, int client, int round) {
  json body = {{"model", "stories260K"},
               {"messages", {{{"role", "user"}, {"content", "Tell me a story"}}}},
               {"max_tokens", 48},
               {"temperature", 0.8},
               {"seed", client * 100 + round},
               {"stream", true},
               {"stream_options", {{"include_usage", true}}}};
  HttpResult r = http("POST", s.url("/v1/chat/completions"), body.dump());
  Outcome o;
  o.status = r.status;
  if (r.status != 200) {
    o.problem = "status " + std::to_string(r.status) + " " + r.error;
    return o;
  }
  std::vector<std::string> events;
  if (!split_sse(r.body, events, o.problem)) return o;
  if (events.size() < 3 || events.back() != "[DONE]") {
    o.problem = "stream did not end with [DONE]";
    return o;
  }
  try {
    json first = json::parse(events.front());
    json usage = json::parse(events[events.size() - 2]);
    json finish = json::parse(events[events.size() - 3]);
    if (first["choices"][0]["delta"]["role"] != "assistant") o.problem = "no role delta";
    else if (!usage["choices"].empty() || !usage["usage"].is_object()) o.problem = "no usage chunk";
    else if (finish["choices"][0]["finish_reason"].is_null()) o.problem = "no finish_reason";
    else o.well_formed = true;
  } catch (const std::exception& e) {
    o.problem = std::string("bad JSON: ") + e.what();
  }
  return o;
}

TEST(Load, ThirtyTwoStreamingClientsFiveRequestsEach) {
  // Queue deep enough for every client: this measures completeness, not admission.
  ServerProcess s({"--model", stories_model()}, {{"A3S_POWER_MAX_QUEUE", "64"}});
  ASSERT_TRUE(s.ready()) << s.log();

  // Warm-up: one request per slot at once so every slot's KV cache exists, then a single one.
  std::vector<std::thread> warm;
  for (int i = 0; i < 4; ++i) warm.emplace_back([&, i] { stream_once(s, 1000 + i, 0); });
  for (auto& t : warm) t.join();
  ASSERT_TRUE(stream_once(s, 999, 0).well_formed);
  std::this_thread::sleep_for(200ms);
  long before = s.rss_kib();
  ASSERT_GT(before, 0);

  constexpr int kClients = 32, kRounds = 5;
  std::vector<Outcome> outcomes(kClients * kRounds);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) outcomes[c * kRounds + r] = stream_once(s, c, r);
    });
  }
  for (auto& t : clients) t.join();

  int ok = 0, server_errors = 0;
  for (const auto& o : outcomes) {
    if (o.status >= 500) ++server_errors;
    if (o.well_formed) ++ok;
    else ADD_FAILURE() << o.problem;
  }
  EXPECT_EQ(server_errors, 0);
  EXPECT_EQ(ok, kClients * kRounds);

  // Memory returns to its pre-load level (allocator caches may take a moment to be trimmed).
  long after = s.rss_kib();
  for (int i = 0; i < 50 && after > before * 11 / 10; ++i) {
    std::this_thread::sleep_for(100ms);
    after = s.rss_kib();
  }
  EXPECT_LE(after, before * 11 / 10) << "RSS before " << before << " KiB, after " << after << " KiB";
  EXPECT_EQ(s.stop(), 0) << s.log();
}

}  // namespace
}  // namespace a3s::power::testing

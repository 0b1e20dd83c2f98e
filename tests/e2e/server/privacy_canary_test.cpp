// End-to-end privacy canary: the real server with the privacy policy on (tee_mode, or redact_logs alone;
// either implies suppress_token_metrics), an API key, and requests that carry a unique canary string in every place a
// client can put text — prompts, chat messages, a streamed chat, a malformed body, the model name, an
// unknown field, a role, a path, the API key itself, and a stream cut by shutdown. The canary must not
// appear in any log line, response body, error, /metrics or /health (stories260K cannot produce it, so
// there is no legitimate echo), and every token count that leaves the process is a multiple of 10.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <thread>

#include "support/http_client.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kKey = "sk-privacy-e2e-key";

std::string new_canary() {
  std::random_device rd;
  std::uniform_int_distribution<uint32_t> d;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", d(rd));
  return std::string("CANARY-7f3a9c") + hex;
}

void expect_rounded_usage(const json& usage, const std::string& what) {
  ASSERT_TRUE(usage.is_object()) << what;
  for (const char* k : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    ASSERT_TRUE(usage[k].is_number_integer()) << what << " " << usage.dump();
    EXPECT_EQ(usage[k].get<int64_t>() % 10, 0) << what << " " << k << " " << usage.dump();
  }
  EXPECT_EQ(usage["total_tokens"].get<int64_t>(),
            usage["prompt_tokens"].get<int64_t>() + usage["completion_tokens"].get<int64_t>())
      << what;
}

// Runs every request against a server started with `policy` (config lines) and checks the outputs.
void run_canary(const std::string& policy) {
  const std::string canary = new_canary();
  TempDir dir;
  const std::string cfg = dir.write("power.hcl", policy +
                                                     "log_level = \"debug\"\n"
                                                     "api_key \"tester\" {\n  key = \"" + std::string(kKey) +
                                                     "\"\n}\n");
  ServerProcess s({"--config", cfg, "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();

  HttpOptions auth;
  auth.headers = {std::string("Authorization: Bearer ") + kKey};
  std::vector<std::pair<std::string, HttpResult>> seen;  // every response, for the final search
  auto post = [&](const std::string& what, const std::string& path, const std::string& body,
                  HttpOptions o) -> const HttpResult& {
    seen.emplace_back(what, http("POST", s.url(path), body, o));
    return seen.back().second;
  };
  const std::string secret_text = "My password is " + canary + " and my diagnosis is " + canary + ".";
  const json messages = json::array({json{{"role", "system"}, {"content", canary}},
                                     json{{"role", "user"}, {"content", secret_text}}});

  // Chat, non-streaming.
  const HttpResult& chat = post("chat", "/v1/chat/completions",
                                json{{"model", "stories260K"}, {"messages", messages}, {"max_tokens", 23}}.dump(), auth);
  ASSERT_EQ(chat.status, 200) << chat.body;
  expect_rounded_usage(json::parse(chat.body)["usage"], "chat");

  // Text completion.
  const HttpResult& completion =
      post("completion", "/v1/completions",
           json{{"model", "stories260K"}, {"prompt", secret_text}, {"max_tokens", 17}, {"stop", json::array({canary})}}.dump(), auth);
  ASSERT_EQ(completion.status, 200) << completion.body;
  expect_rounded_usage(json::parse(completion.body)["usage"], "completion");

  // Embeddings: the vectors come back, the text never, and the usage is rounded.
  const HttpResult& embedding = post("embeddings", "/v1/embeddings",
                                     json{{"model", "stories260K"}, {"input", {secret_text, canary}}}.dump(), auth);
  ASSERT_EQ(embedding.status, 200) << embedding.body;
  EXPECT_EQ(json::parse(embedding.body)["usage"]["prompt_tokens"].get<int>() % 10, 0);
  const HttpResult& bad_embedding = post("bad embeddings", "/v1/embeddings",
                                         json{{"model", "stories260K"}, {"input", {canary, 1}}}.dump(), auth);
  EXPECT_EQ(bad_embedding.status, 400) << bad_embedding.body;

  // Streaming chat with the usage chunk.
  const HttpResult& stream = post("stream", "/v1/chat/completions",
                                  json{{"model", "stories260K"},
                                       {"messages", messages},
                                       {"max_tokens", 13},
                                       {"stream", true},
                                       {"stream_options", {{"include_usage", true}}}}
                                      .dump(),
                                  auth);
  ASSERT_EQ(stream.status, 200) << stream.body;
  {
    std::vector<std::string> events;
    std::string problem;
    ASSERT_TRUE(split_sse(stream.body, events, problem)) << problem;
    ASSERT_GE(events.size(), 2u);
    expect_rounded_usage(json::parse(events[events.size() - 2])["usage"], "stream usage chunk");
  }

  // Errors that carry the canary in every shape a client can send.
  json unknown_field = {{"model", "stories260K"}, {"messages", messages}};
  unknown_field[canary] = canary;
  json bad_role = {{"model", "stories260K"}, {"messages", {{{"role", canary}, {"content", canary}}}}};
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"malformed json", "{\"model\": \"stories260K\", \"messages\": [{\"role\": \"user\", \"content\": \"" + canary +
                             "\"}], oops " + canary},
      {"unknown model", json{{"model", canary}, {"messages", messages}}.dump()},
      {"unknown field", unknown_field.dump()},
      {"bad role", bad_role.dump()},
      {"bad value", json{{"model", "stories260K"}, {"messages", messages}, {"temperature", canary}}.dump()},
  };
  for (const auto& [what, body] : bad) {
    const HttpResult& r = post(what, "/v1/chat/completions", body, auth);
    EXPECT_GE(r.status, 400) << what << ": " << r.body;
  }
  HttpOptions wrong_key;
  wrong_key.headers = {"Authorization: Bearer " + canary};
  EXPECT_EQ(post("invalid api key", "/v1/chat/completions", json{{"model", "stories260K"}, {"messages", messages}}.dump(),
                 wrong_key)
                .status,
            401);
  seen.emplace_back("model path", http("GET", s.url("/v1/models/" + canary), "", auth));
  EXPECT_EQ(seen.back().second.status, 404);

  // /metrics and /health.
  seen.emplace_back("metrics", http("GET", s.url("/metrics"), "", auth));
  const std::string metrics = seen.back().second.body;
  for (const char* series : {"a3s_power_prompt_tokens_total", "a3s_power_completion_tokens_total"}) {
    const auto at = metrics.find(std::string("\n") + series + " ");
    ASSERT_NE(at, std::string::npos) << metrics;
    const double v = std::stod(metrics.substr(at + std::strlen(series) + 2));
    EXPECT_GT(v, 0) << series;
    EXPECT_EQ(static_cast<int64_t>(v) % 10, 0) << series << " = " << v;
  }
  seen.emplace_back("health", http("GET", s.url("/health"), "", auth));
  const json health = json::parse(seen.back().second.body);
  EXPECT_EQ(health["privacy"], json({{"redact_logs", true}, {"suppress_token_metrics", true}}));

  // A stream cut by shutdown ends with an in-stream error event (when the generation was still running).
  std::atomic<bool> got_data{false};
  HttpResult cut;
  std::thread client([&] {
    HttpOptions o = auth;
    o.on_data = [&](std::string_view) {
      got_data = true;
      return true;
    };
    cut = http("POST", s.url("/v1/completions"),
               json{{"model", "stories260K"}, {"prompt", secret_text}, {"max_tokens", 2000}, {"stream", true}}.dump(),
               o);
  });
  for (int i = 0; i < 500 && !got_data; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(s.stop(), 0) << s.log();
  client.join();
  seen.emplace_back("stream cut by shutdown", cut);

  for (const auto& [what, r] : seen) {
    EXPECT_EQ(r.body.find(canary), std::string::npos) << what << ": " << r.body;
    for (const auto& [name, value] : r.headers) {
      EXPECT_EQ(value.find(canary), std::string::npos) << what << ": header " << name;
    }
  }
  const std::string log = s.log();
  EXPECT_EQ(log.find(canary), std::string::npos) << log;
  EXPECT_EQ(log.find("CANARY"), std::string::npos) << log;
  // The per-request line reports rounded counts only.
  const std::regex count(R"((prompt|completion)_tokens=(-?\d+))");
  int counted = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), count); it != std::sregex_iterator(); ++it) {
    const int64_t n = std::stoll((*it)[2].str());
    if (n >= 0) {
      EXPECT_EQ(n % 10, 0) << (*it)[0].str();
      ++counted;
    }
  }
  EXPECT_GE(counted, 6) << log;  // three generations, two counts each
}

// TEE mode (development policy: simulated evidence on machines without attestation hardware) implies
// the whole policy.
TEST(E2EPrivacy, CanaryNeverLeavesATeeModeServer) {
  run_canary("tee_mode = true\ntee_policy = \"development\"\n");
}

// The same policy without TEE mode, from redact_logs alone.
TEST(E2EPrivacy, CanaryNeverLeavesARedactingServer) { run_canary("redact_logs = true\n"); }

}  // namespace
}  // namespace a3s::power::testing

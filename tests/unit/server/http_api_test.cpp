// The HTTP API in-process, over real loopback HTTP, with a fake model behind the serving
// interface: routes, SSE framing, errors and statuses, auth, admission (429/503), disconnects,
// keep-alive and graceful shutdown.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <chrono>
#include <future>
#include <thread>

#include "support/http_client.h"
#include "support/sse_chunks.h"
#include "support/fake_runtime.h"
#include "server/server.h"

namespace a3s::power::server {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::FakeOptions;
using testing::http;
using testing::HttpOptions;
using testing::HttpResult;

class ApiTest : public ::testing::Test {
 protected:
  void start(config::Config cfg = {}, FakeOptions fo = {}) {
    fake_ = fo;
    cfg.port = 0;  // host: the default (127.0.0.1) unless a test binds elsewhere
    auto reg = std::make_shared<runtime::ModelRegistry>(
        [fo](const std::string& name, const std::string&) {
          return std::make_shared<testing::FakeRuntime>(name, fo);
        },
        nullptr);
    reg->add_path("fake", "/fake/fake.gguf");
    server_ = std::make_unique<Server>(cfg, reg);
    port_ = server_->start();
  }
  void TearDown() override {
    if (fake_.gate) fake_.gate->open();
    if (server_) {
      server_->request_shutdown();
      server_->wait();
    }
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  HttpResult get(const std::string& path, HttpOptions o = {}) { return http("GET", url(path), "", o); }
  HttpResult post(const std::string& path, const json& body, HttpOptions o = {}) {
    return http("POST", url(path), body.dump(), o);
  }
  static json chat_body(json extra = json::object()) {
    json j = {{"model", "fake"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
    return j;
  }
  static json error_of(const HttpResult& r) {
    json j = json::parse(r.body);
    EXPECT_TRUE(j.contains("error")) << r.body;
    json e = j["error"];
    for (const char* k : {"message", "type", "code", "param"}) EXPECT_TRUE(e.contains(k)) << r.body;
    return e;
  }
  double metric(const std::string& series) {
    std::string t = get("/metrics").body;
    auto pos = t.find("\n" + series + " ");
    if (pos == std::string::npos) return -1;
    return std::stod(t.substr(pos + series.size() + 2));
  }

  FakeOptions fake_;
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
};

const std::string kOut = FakeOptions{}.output;

TEST_F(ApiTest, HealthReportsModelsSettingsAndTee) {
  start();
  HttpResult r = get("/health");
  ASSERT_EQ(r.status, 200) << r.error;
  json j = json::parse(r.body);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_TRUE(j["version"].is_string());
  EXPECT_GE(j["uptime_seconds"].get<int64_t>(), 0);
  ASSERT_EQ(j["models"].size(), 1u);
  EXPECT_EQ(j["models"][0]["name"], "fake");
  EXPECT_EQ(j["models"][0]["loaded"], true);
  EXPECT_EQ(j["models"][0]["n_ctx"], 64);
  EXPECT_TRUE(j["settings"].is_object());
  EXPECT_EQ(j["tee"]["enabled"], false);
  EXPECT_EQ(j["tee"]["type"], "none");
  EXPECT_EQ(r.headers["content-type"], "application/json");
}

TEST_F(ApiTest, ChatCompletionNonStreaming) {
  start();
  HttpResult r = post("/v1/chat/completions", chat_body());
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(j["model"], "fake");
  EXPECT_EQ(j["system_fingerprint"], "fp_fake");
  EXPECT_GT(j["created"].get<int64_t>(), 1600000000);
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(j["choices"][0]["message"]["content"], kOut);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  // Prompt "user: hi\nassistant:" is 19 bytes + BOS.
  EXPECT_EQ(j["usage"]["prompt_tokens"], 20);
  EXPECT_EQ(j["usage"]["completion_tokens"], static_cast<int>(kOut.size()));
  EXPECT_EQ(j["usage"]["total_tokens"], 20 + static_cast<int>(kOut.size()));
}

TEST_F(ApiTest, PromptCacheKeyOnAModelThatCannotSnapshotIsRefusedNeverIgnored) {
  start();  // the fake runtime has no KV snapshots
  json h = json::parse(get("/health").body);
  EXPECT_EQ(h["prompt_cache"], (json{{"supported", true}, {"max_entries", 1}, {"ttl_seconds", 300.0}, {"max_mb", 256}}));
  for (const char* path : {"/v1/chat/completions", "/v1/completions"}) {
    json body = std::string(path) == "/v1/completions"
                    ? json{{"model", "fake"}, {"prompt", "hi"}, {"prompt_cache_key", "doc"}}
                    : chat_body({{"prompt_cache_key", "doc"}});
    HttpResult r = post(path, body);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(error_of(r)["code"], "prompt_cache_unsupported") << r.body;
    EXPECT_EQ(r.body.find("\"doc\""), std::string::npos) << r.body;
    body["prompt_cache_key"] = "";
    r = post(path, body);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(error_of(r)["param"], "prompt_cache_key") << r.body;
    body["prompt_cache_key"] = std::string(257, 'k');
    EXPECT_EQ(error_of(post(path, body))["param"], "prompt_cache_key");
    body["prompt_cache_key"] = 12;
    EXPECT_EQ(error_of(post(path, body))["param"], "prompt_cache_key");
  }
  // Without the key the same request runs, and usage says nothing came from the cache.
  HttpResult ok = post("/v1/chat/completions", chat_body());
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(json::parse(ok.body)["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  EXPECT_EQ(metric("a3s_power_prompt_cache_requests_total"), 0);
}

TEST_F(ApiTest, WithoutAPromptCacheAKeyedRequestIsRefused) {
  config::Config cfg;
  cfg.prompt_cache_mb = 0;
  start(cfg);
  json h = json::parse(get("/health").body);
  EXPECT_EQ(h["prompt_cache"]["supported"], false);
  HttpResult r = post("/v1/chat/completions", chat_body({{"prompt_cache_key", "doc"}}));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_of(r)["code"], "prompt_cache_unsupported");
  EXPECT_EQ(metric("a3s_power_prompt_cache_requests_total"), -1);  // no cache, no series
}

TEST_F(ApiTest, ChatStreamingFramingAndUsage) {
  start();
  HttpResult r = post("/v1/chat/completions",
                      chat_body({{"stream", true}, {"stream_options", {{"include_usage", true}}}}));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "text/event-stream");
  std::vector<std::string> events;
  std::string problem;
  ASSERT_TRUE(testing::split_sse(r.body, events, problem)) << problem;
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events.back(), "[DONE]");
  std::string content;
  std::string id;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    json c = json::parse(events[i]);
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    if (id.empty()) id = c["id"];
    EXPECT_EQ(c["id"], id);
    ASSERT_TRUE(c.contains("usage"));
    if (i == 0) {
      EXPECT_EQ(c["choices"][0]["delta"]["role"], "assistant");
    }
    if (i + 2 == events.size()) {  // usage chunk
      EXPECT_TRUE(c["choices"].empty());
      EXPECT_EQ(c["usage"]["completion_tokens"], static_cast<int>(kOut.size()));
      EXPECT_EQ(c["usage"]["total_tokens"], 20 + static_cast<int>(kOut.size()));
      continue;
    }
    EXPECT_TRUE(c["usage"].is_null());
    if (c["choices"][0]["delta"].contains("content")) content += c["choices"][0]["delta"]["content"];
    if (i + 3 == events.size()) {
      EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
    }
  }
  EXPECT_EQ(content, kOut);
}

TEST_F(ApiTest, CompletionsBothModes) {
  start();
  HttpResult r = post("/v1/completions", {{"model", "fake"}, {"prompt", "Once"}, {"max_tokens", 5}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["id"].get<std::string>().rfind("cmpl-", 0), 0u);
  EXPECT_EQ(j["choices"][0]["text"], kOut.substr(0, 5));
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 5);
  EXPECT_EQ(j["usage"]["completion_tokens"], 5);

  HttpResult s = post("/v1/completions", {{"model", "fake"}, {"prompt", {"Once"}}, {"stream", true}});
  ASSERT_EQ(s.status, 200);
  std::vector<std::string> events;
  std::string problem;
  ASSERT_TRUE(testing::split_sse(s.body, events, problem)) << problem;
  EXPECT_EQ(events.back(), "[DONE]");
  std::string text;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    json c = json::parse(events[i]);
    EXPECT_EQ(c["object"], "text_completion");
    EXPECT_FALSE(c.contains("usage"));
    text += c["choices"][0]["text"].get<std::string>();
  }
  EXPECT_EQ(text, kOut);
  EXPECT_EQ(json::parse(events[events.size() - 2])["choices"][0]["finish_reason"], "stop");
}

TEST_F(ApiTest, StopStringsAreHonouredAndNeverLeaked) {
  start();
  json j = json::parse(post("/v1/chat/completions", chat_body({{"stop", {"world"}}})).body);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "Hello ");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  HttpResult s = post("/v1/chat/completions", chat_body({{"stop", "fake"}, {"stream", true}}));
  EXPECT_EQ(s.body.find("fake model"), std::string::npos);
  EXPECT_NE(s.body.find("[DONE]"), std::string::npos);
}

TEST_F(ApiTest, ErrorStatusesAndShapes) {
  config::Config cfg;
  cfg.max_body_bytes = 2048;
  start(cfg);
  auto check = [&](const HttpResult& r, long status, const std::string& code, const std::string& type) {
    EXPECT_EQ(r.status, status) << r.body;
    json e = error_of(r);
    EXPECT_EQ(e["code"], code) << r.body;
    EXPECT_EQ(e["type"], type) << r.body;
    return e;
  };
  check(http("POST", url("/v1/chat/completions"), "{not json"), 400, "invalid_json", "invalid_request_error");
  json e = check(post("/v1/chat/completions", chat_body({{"temperature", "hot"}})), 400,
                 "invalid_request_error", "invalid_request_error");
  EXPECT_EQ(e["param"], "temperature");
  e = check(post("/v1/chat/completions", chat_body({{"audio", {{"voice", "x"}}}})), 400, "unsupported_field",
            "invalid_request_error");
  EXPECT_EQ(e["param"], "audio");
  // Well-formed tools for a model whose template writes no tool calls the server can read.
  e = check(post("/v1/chat/completions",
                 chat_body({{"tools", json::array({{{"type", "function"}, {"function", {{"name", "f"}}}}})}})),
            400, "unsupported_field", "invalid_request_error");
  EXPECT_EQ(e["param"], "tools");
  e = check(post("/v1/chat/completions", chat_body({{"n", 9}})), 400, "invalid_request_error",
            "invalid_request_error");
  EXPECT_EQ(e["param"], "n");
  // An unknown field's name is request content: refused without echoing it.
  const std::string odd_name = "field-" + std::string(63, 'a');
  e = check(post("/v1/chat/completions", chat_body({{odd_name, 1}})), 400, "unsupported_field",
            "invalid_request_error");
  EXPECT_TRUE(e["param"].is_null());
  e = check(post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}, {odd_name, 1}}), 400,
            "unsupported_field", "invalid_request_error");
  EXPECT_TRUE(e["param"].is_null());
  e = check(post("/v1/chat/completions", chat_body({{"model", "nope"}})), 404, "model_not_found",
            "not_found_error");
  EXPECT_EQ(e["param"], "model");
  check(get("/v1/nothing/here"), 404, "not_found", "not_found_error");
  HttpResult m = get("/v1/chat/completions");
  check(m, 405, "method_not_allowed", "invalid_request_error");
  EXPECT_EQ(m.headers["allow"], "POST");
  // Context: 64 tokens; a 100-byte prompt does not fit (never truncated).
  check(post("/v1/completions", {{"model", "fake"}, {"prompt", std::string(100, 'x')}}), 400,
        "context_length_exceeded", "invalid_request_error");
  check(post("/v1/chat/completions",
             chat_body(
                 {{"stream", true}, {"messages", {{{"role", "user"}, {"content", std::string(100, 'x')}}}}})),
        400, "context_length_exceeded", "invalid_request_error");
  // The template's own rejection is a 400 with its message.
  check(post("/v1/chat/completions",
             chat_body({{"messages", {{{"role", "system"}, {"content", "reject me"}}}}})),
        400, "invalid_request_error", "invalid_request_error");
  // Body over max_body_bytes → 413.
  HttpResult big = post("/v1/chat/completions", chat_body({{"user", std::string(4096, 'u')}}));
  check(big, 413, "request_too_large", "invalid_request_error");
}

TEST_F(ApiTest, ErrorBodiesNeverContainPromptText) {
  start();
  const std::string secret = "TOP-SECRET-PROMPT-91c2";
  for (const json& body :
       {chat_body({{"messages", {{{"role", "user"}, {"content", secret + std::string(80, 'x')}}}}}),
        chat_body({{"messages", {{{"role", "user"}, {"content", secret}}}}, {"tools", {{"x", 1}}}}),
        chat_body({{"messages", {{{"role", "user"}, {"content", secret}}}}, {"temperature", secret}}),
        chat_body({{"messages", {{{"role", secret}, {"content", secret}}}}})}) {
    HttpResult r = post("/v1/chat/completions", body);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.body.find(secret), std::string::npos) << r.body;
  }
}

TEST_F(ApiTest, ErrorBodiesNeverEchoRequestContent) {
  start();
  const std::string canary = "CANARY-5e0d";
  json extra_in_message = json::object({{"role", "user"}, {"content", "hi"}});
  extra_in_message[canary] = 1;
  json part = json::object({{"type", "text"}, {"text", "a"}});
  part[canary] = 1;
  json extra_in_part = json::object({{"role", "user"}});
  extra_in_part["content"] = json::array({part});
  json bad_role = json::object({{"role", canary}, {"content", "hi"}});
  json stream_options = json::object();
  stream_options[canary] = true;
  std::vector<json> bodies = {
      chat_body({{canary, 1}}),        // unknown field name
      chat_body({{"model", canary}}),  // unknown model
      chat_body({{"stream", true}, {"stream_options", stream_options}}),
      chat_body({{"messages", json::array({extra_in_message})}}),
      chat_body({{"messages", json::array({extra_in_part})}}),
      chat_body({{"messages", json::array({bad_role})}}),
      chat_body({{"stop", json::array({canary, canary, canary, canary, canary})}}),
      chat_body({{"max_tokens", canary}}),
  };
  for (const json& body : bodies) {
    HttpResult r = post("/v1/chat/completions", body);
    EXPECT_GE(r.status, 400) << r.body;
    EXPECT_EQ(r.body.find(canary), std::string::npos) << r.body;
  }
  HttpResult bad_json = http("POST", url("/v1/chat/completions"), "{\"model\": \"" + canary + "\", oops");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_EQ(bad_json.body.find(canary), std::string::npos) << bad_json.body;
  HttpResult pull = post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}, {canary, 1}});
  EXPECT_EQ(pull.body.find(canary), std::string::npos) << pull.body;
  EXPECT_EQ(get("/v1/models/" + canary).body.find(canary), std::string::npos);
}

TEST_F(ApiTest, HealthReportsThePrivacyPolicy) {
  config::Config cfg;
  cfg.redact_logs = true;
  cfg.suppress_token_metrics = true;
  start(cfg);
  json j = json::parse(get("/health").body);
  EXPECT_EQ(j["privacy"]["redact_logs"], true);
  EXPECT_EQ(j["privacy"]["suppress_token_metrics"], true);
  EXPECT_EQ(j["settings"]["redact_logs"], true);
}

TEST_F(ApiTest, SuppressedTokenCountsAreRoundedEverywhere) {
  config::Config cfg;
  cfg.suppress_token_metrics = true;
  start(cfg);
  // Exact counts: prompt 20 ("user: hi\nassistant:" + BOS), completion kOut.size() = 43.
  ASSERT_EQ(kOut.size(), 43u);
  json j = json::parse(post("/v1/chat/completions", chat_body()).body);
  EXPECT_EQ(j["usage"]["prompt_tokens"], 20);
  EXPECT_EQ(j["usage"]["completion_tokens"], 40);
  EXPECT_EQ(j["usage"]["total_tokens"], 60);
  // Text completion: prompt "abc" = 4 tokens → 0.
  json t = json::parse(post("/v1/completions", {{"model", "fake"}, {"prompt", "abc"}}).body);
  EXPECT_EQ(t["usage"]["prompt_tokens"], 0);
  EXPECT_EQ(t["usage"]["completion_tokens"], 40);
  EXPECT_EQ(t["usage"]["total_tokens"], 40);
  // The streaming usage chunk.
  HttpResult s = post("/v1/chat/completions",
                      chat_body({{"stream", true}, {"stream_options", {{"include_usage", true}}}}));
  auto at = s.body.find("\"usage\":{");
  ASSERT_NE(at, std::string::npos) << s.body;
  EXPECT_NE(s.body.find("\"completion_tokens\":40", at), std::string::npos) << s.body;
  EXPECT_NE(s.body.find("\"total_tokens\":60", at), std::string::npos) << s.body;
  // /metrics accumulates the rounded values (20 + 0 + 20 prompt, 40 * 3 completion).
  double completion = -1;
  for (int i = 0; i < 200 && completion != 120; ++i) {
    completion = metric("a3s_power_completion_tokens_total");
    if (completion != 120) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(completion, 120);
  EXPECT_EQ(metric("a3s_power_prompt_tokens_total"), 40);
}

TEST_F(ApiTest, MaxTokensBeyondTheContextFinishesWithLength) {
  FakeOptions fo;
  fo.output = std::string(200, 'a');
  start({}, fo);
  json j =
      json::parse(post("/v1/completions", {{"model", "fake"}, {"prompt", "x"}, {"max_tokens", 1000}}).body);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 2);
  EXPECT_EQ(j["usage"]["completion_tokens"], 62);  // the room left in a 64-token context
}

TEST_F(ApiTest, HeaderTooLargeAndMalformedRequests) {
  start();
  std::string huge = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n";
  std::string r = testing::raw_exchange(port_, huge);
  EXPECT_EQ(r.rfind("HTTP/1.1 431", 0), 0u) << r.substr(0, 200);
  EXPECT_NE(r.find("\"header_too_large\""), std::string::npos);
  std::string bad = testing::raw_exchange(port_, "NOT-HTTP\r\n\r\n");
  EXPECT_EQ(bad.rfind("HTTP/1.1 400", 0), 0u) << bad.substr(0, 200);
  EXPECT_NE(bad.find("\"error\""), std::string::npos);
}

// A body whose length the parser cannot know must not be read as a second request on the connection
// (request smuggling): it is refused and the connection closed.
TEST_F(ApiTest, ABodyOfUnknownLengthIsRefusedAndNeverReadAsAnotherRequest) {
  start();
  const std::string smuggled = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  for (const char* headers :
       {"Transfer-Encoding: gzip\r\n", "Transfer-Encoding: chunked, gzip\r\n", "Transfer-Encoding: identity\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"}) {
    SCOPED_TRACE(headers);
    const std::string r = testing::raw_exchange(
        port_, std::string("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n") + headers + "\r\n" + smuggled);
    EXPECT_EQ(r.rfind("HTTP/1.1 400", 0), 0u) << r.substr(0, 200);
    EXPECT_EQ(r.find("HTTP/1.1 200"), std::string::npos) << "the smuggled request was served";
  }
  // Chunked bodies are still read.
  const std::string ok = testing::raw_exchange(
      port_, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok.substr(0, 200);
}

TEST_F(ApiTest, ModelsListGetDelete) {
  start();
  json list = json::parse(get("/v1/models").body);
  EXPECT_EQ(list["object"], "list");
  ASSERT_EQ(list["data"].size(), 1u);
  EXPECT_EQ(list["data"][0]["id"], "fake");
  EXPECT_EQ(list["data"][0]["object"], "model");
  EXPECT_EQ(list["data"][0]["owned_by"], "a3s-power");
  HttpResult one = get("/v1/models/fake");
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(json::parse(one.body)["id"], "fake");
  EXPECT_EQ(get("/v1/models/other").status, 404);
  EXPECT_EQ(http("DELETE", url("/v1/models/other")).status, 404);
  // A configured model cannot be unloaded through the API: it stays served.
  HttpResult del = http("DELETE", url("/v1/models/fake"));
  EXPECT_EQ(del.status, 403) << del.body;
  EXPECT_EQ(error_of(del)["code"], "permission_denied");
  EXPECT_EQ(get("/v1/models/fake").status, 200);
  EXPECT_EQ(post("/v1/chat/completions", chat_body()).status, 200);
  EXPECT_EQ(metric("a3s_power_models_loaded"), 1);
  // No store configured: pull is unavailable, not a crash.
  HttpResult pull = post("/v1/models/pull", {{"model", "/nonexistent.gguf"}});
  EXPECT_EQ(pull.status, 503) << pull.body;
}

TEST_F(ApiTest, MetricsUseRouteTemplates) {
  start();
  get("/v1/models/some-model-name");
  get("/private/user/path");
  post("/v1/chat/completions", chat_body());
  // A request is counted when its exchange ends, just after the client has the last byte: poll.
  std::string t;
  for (int i = 0; i < 200; ++i) {
    t = get("/metrics").body;
    if (t.find("route=\"/v1/chat/completions\",status=\"200\"} 1") != std::string::npos &&
        t.find("route=\"unmatched\",status=\"404\"} 1") != std::string::npos &&
        t.find("route=\"/v1/models/{id}\",status=\"404\"} 1") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"/v1/models/{id}\",status=\"404\"} 1"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"unmatched\",status=\"404\"} 1"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"/v1/chat/completions\",status=\"200\"} 1"),
            std::string::npos);
  EXPECT_EQ(t.find("some-model-name"), std::string::npos);
  EXPECT_EQ(t.find("/private/user/path"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_time_to_first_token_seconds_count{route=\"/v1/chat/completions\"} 1"),
            std::string::npos);
  EXPECT_NE(t.find("a3s_power_prompt_tokens_total 20"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_active_requests 0"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_queued_requests 0"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_models_loaded 1"), std::string::npos);
}

config::ApiKey key_for(const std::string& raw) {
  config::ApiKey k;
  k.identity = "tester";
  unsigned int len = 0;
  EVP_Digest(raw.data(), raw.size(), k.sha256.data(), &len, EVP_sha256(), nullptr);
  return k;
}

TEST_F(ApiTest, ApiKeysGuardV1AndMetrics) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-test-123")};
  start(cfg);
  HttpResult none = get("/v1/models");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(error_of(none)["type"], "authentication_error");
  EXPECT_EQ(error_of(none)["code"], "invalid_api_key");
  HttpOptions wrong;
  wrong.headers = {"Authorization: Bearer sk-wrong"};
  EXPECT_EQ(get("/v1/models", wrong).status, 401);
  EXPECT_EQ(post("/v1/chat/completions", chat_body(), wrong).status, 401);
  HttpOptions right;
  right.headers = {"Authorization: Bearer sk-test-123"};
  EXPECT_EQ(get("/v1/models", right).status, 200);
  EXPECT_EQ(post("/v1/chat/completions", chat_body(), right).status, 200);
  EXPECT_EQ(get("/health").status, 200);
  EXPECT_EQ(get("/metrics").status, 401);
  EXPECT_EQ(get("/metrics", right).status, 200);
  // Unknown /v1 paths do not reveal what exists without a key.
  EXPECT_EQ(get("/v1/secret").status, 401);
}

TEST_F(ApiTest, TheAnthropicRoutesTakeXApiKeyAndAnswerErrorsInAnthropicsShape) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-test-123")};
  start(cfg);
  const json body = {{"model", "fake"}, {"max_tokens", 8}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  HttpResult none = post("/v1/messages", body);
  EXPECT_EQ(none.status, 401);
  const json expected = {{"type", "error"},
                         {"error",
                          {{"type", "authentication_error"},
                           {"message", "a valid API key is required (Authorization: Bearer <key>, or x-api-key: <key>)"}}}};
  EXPECT_EQ(json::parse(none.body), expected);
  HttpOptions wrong;
  wrong.headers = {"x-api-key: sk-wrong"};
  EXPECT_EQ(post("/v1/messages", body, wrong).status, 401);
  HttpOptions key;
  key.headers = {"x-api-key: sk-test-123", "anthropic-version: 2023-06-01"};
  HttpResult ok = post("/v1/messages", body, key);
  ASSERT_EQ(ok.status, 200) << ok.body;
  const json m = json::parse(ok.body);
  EXPECT_EQ(m["content"][0]["text"], "Hello wo");
  EXPECT_EQ(m["stop_reason"], "max_tokens");
  // x-api-key works on the OpenAI routes too; their errors keep the OpenAI shape.
  EXPECT_EQ(get("/v1/models", key).status, 200);
  EXPECT_EQ(error_of(post("/v1/chat/completions", chat_body({{"temperature", "x"}}), key))["param"], "temperature");
  // Anthropic-shaped: a 400 from the parser, a 404 for a model, a 405, and a count.
  HttpResult bad = post("/v1/messages", {{"model", "fake"}, {"messages", body["messages"]}}, key);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["type"], "invalid_request_error");
  EXPECT_EQ(json::parse(bad.body)["type"], "error");
  HttpResult missing = post("/v1/messages", {{"model", "nope"}, {"max_tokens", 8}, {"messages", body["messages"]}}, key);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["error"]["type"], "not_found_error");
  HttpResult method = get("/v1/messages", key);
  EXPECT_EQ(method.status, 405);
  EXPECT_EQ(json::parse(method.body)["error"]["type"], "invalid_request_error");
  HttpResult count = post("/v1/messages/count_tokens", {{"model", "fake"}, {"messages", body["messages"]}}, key);
  ASSERT_EQ(count.status, 200) << count.body;
  EXPECT_EQ(json::parse(count.body)["input_tokens"], 20);  // the fake renders "user: hi\nassistant:" + BOS
}

TEST_F(ApiTest, ErrorsBeforeRoutingHaveAnthropicsShapeOnItsRoutes) {
  config::Config cfg;
  cfg.max_body_bytes = 2048;
  start(cfg);
  const std::string big = json{{"model", "fake"}, {"max_tokens", 8},
                               {"messages", {{{"role", "user"}, {"content", std::string(4096, 'x')}}}}}.dump();
  for (const char* path : {"/v1/messages", "/v1/messages/count_tokens"}) {
    HttpResult r = http("POST", url(path), big);
    EXPECT_EQ(r.status, 413) << r.body;
    const json j = json::parse(r.body);
    EXPECT_EQ(j["type"], "error") << r.body;
    EXPECT_EQ(j["error"]["type"], "request_too_large");
  }
  HttpResult openai = http("POST", url("/v1/chat/completions"), big);
  EXPECT_EQ(openai.status, 413);
  EXPECT_EQ(error_of(openai)["code"], "request_too_large");
}

TEST_F(ApiTest, AnthropicStreamsAndStopSequences) {
  start();
  json body = {{"model", "fake"}, {"max_tokens", 30}, {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"stop_sequences", {"zzz", "fake"}}};
  HttpResult r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  json m = json::parse(r.body);
  EXPECT_EQ(m["content"][0]["text"], "Hello world, this is a ");
  EXPECT_EQ(m["stop_reason"], "stop_sequence");
  EXPECT_EQ(m["stop_sequence"], "fake");
  body["stream"] = true;
  HttpResult s = post("/v1/messages", body);
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.headers["content-type"], "text/event-stream");
  // The events in order, each "event: <type>" naming its data's type.
  std::vector<std::string> types;
  std::string text;
  for (const json& data : testing::sse_typed_events(s.body)) {
    types.push_back(data["type"]);
    if (data["type"] == "content_block_delta") text += data["delta"]["text"].get<std::string>();
    if (data["type"] == "message_delta") {
      EXPECT_EQ(data["delta"]["stop_reason"], "stop_sequence");
      EXPECT_EQ(data["delta"]["stop_sequence"], "fake");
    }
  }
  EXPECT_EQ(text, "Hello world, this is a ");
  ASSERT_GE(types.size(), 7u);
  EXPECT_EQ(types[0], "message_start");
  EXPECT_EQ(types[1], "content_block_start");
  EXPECT_EQ(types[2], "ping");
  EXPECT_EQ(types[types.size() - 3], "content_block_stop");
  EXPECT_EQ(types[types.size() - 2], "message_delta");
  EXPECT_EQ(types.back(), "message_stop");
}

// A reply of text, then a call (Hermes syntax), then more text: what the Anthropic and Responses
// routes make of it, whole and streamed.
FakeOptions tool_reply() {
  FakeOptions fo;
  fo.output = "Checking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>";
  fo.tool_syntax = chat::ToolCallSyntax::kHermes;
  fo.n_ctx = 512;
  return fo;
}

TEST_F(ApiTest, AnthropicToolUseBlocksWholeAndStreamed) {
  start({}, tool_reply());
  json body = {{"model", "fake"}, {"max_tokens", 200}, {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"tools", {{{"name", "get_weather"}, {"input_schema", {{"type", "object"}}}}}}};
  HttpResult r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json m = json::parse(r.body);
  EXPECT_EQ(m["stop_reason"], "tool_use");
  ASSERT_EQ(m["content"].size(), 2u);
  EXPECT_EQ(m["content"][0]["text"], "Checking.");
  EXPECT_EQ(m["content"][1]["type"], "tool_use");
  EXPECT_EQ(m["content"][1]["name"], "get_weather");
  EXPECT_EQ(m["content"][1]["input"]["city"], "Oslo");
  body["stream"] = true;
  HttpResult s = post("/v1/messages", body);
  ASSERT_EQ(s.status, 200);
  std::string text, input_json, stop_reason;
  std::vector<int> started, stopped;
  for (const json& e : testing::sse_typed_events(s.body)) {
    if (e["type"] == "content_block_start") started.push_back(e["index"]);
    if (e["type"] == "content_block_stop") stopped.push_back(e["index"]);
    if (e["type"] == "content_block_delta" && e["delta"]["type"] == "text_delta") text += e["delta"]["text"].get<std::string>();
    if (e["type"] == "content_block_delta" && e["delta"]["type"] == "input_json_delta") {
      EXPECT_EQ(e["index"], 1);
      input_json += e["delta"]["partial_json"].get<std::string>();
    }
    if (e["type"] == "content_block_start" && e["index"] == 1) {
      EXPECT_EQ(e["content_block"]["type"], "tool_use");
      EXPECT_EQ(e["content_block"]["name"], "get_weather");
    }
    if (e["type"] == "message_delta") stop_reason = e["delta"]["stop_reason"];
  }
  EXPECT_EQ(text, "Checking.");
  EXPECT_EQ(json::parse(input_json)["city"], "Oslo");
  EXPECT_EQ(started, (std::vector<int>{0, 1}));
  EXPECT_EQ(stopped, (std::vector<int>{0, 1}));  // each block closed once, in order
  EXPECT_EQ(stop_reason, "tool_use");
}

TEST_F(ApiTest, ResponsesFunctionCallItemsWholeAndStreamed) {
  start({}, tool_reply());
  json body = {{"model", "fake"}, {"input", "hi"}, {"tools", {{{"type", "function"}, {"name", "get_weather"}}}}};
  HttpResult r = post("/v1/responses", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  ASSERT_EQ(j["output"].size(), 2u);
  EXPECT_EQ(j["output"][0]["content"][0]["text"], "Checking.");
  EXPECT_EQ(j["output"][1]["type"], "function_call");
  EXPECT_EQ(j["output"][1]["name"], "get_weather");
  EXPECT_EQ(json::parse(j["output"][1]["arguments"].get<std::string>())["city"], "Oslo");
  EXPECT_EQ(j["tools"][0]["name"], "get_weather");  // repeated as given
  body["stream"] = true;
  HttpResult s = post("/v1/responses", body);
  ASSERT_EQ(s.status, 200);
  std::string args;
  json completed;
  for (const json& e : testing::sse_typed_events(s.body)) {
    if (e["type"] == "response.function_call_arguments.delta") {
      EXPECT_EQ(e["output_index"], 1);
      args += e["delta"].get<std::string>();
    }
    if (e["type"] == "response.completed") completed = e["response"];
  }
  EXPECT_EQ(json::parse(args)["city"], "Oslo");
  ASSERT_EQ(completed["output"].size(), 2u);
  EXPECT_EQ(completed["output"][1]["call_id"].get<std::string>().rfind("call_", 0), 0u);
}

TEST_F(ApiTest, ResponsesCompleteAndStreamInOrder) {
  start();
  const json body = {{"model", "fake"}, {"input", "hi"}};
  HttpResult r = post("/v1/responses", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["status"], "completed");  // the fake's reply ends with its end of generation
  EXPECT_EQ(j["output"][0]["content"][0]["text"], "Hello world, this is a fake model speaking.");
  json streamed = body;
  streamed["stream"] = true;
  HttpResult s = post("/v1/responses", streamed);
  ASSERT_EQ(s.status, 200);
  std::vector<std::string> types;
  std::string text;
  int last_seq = -1;
  for (const json& data : testing::sse_typed_events(s.body)) {
    EXPECT_EQ(data["sequence_number"].get<int>(), last_seq + 1);
    last_seq = data["sequence_number"];
    types.push_back(data["type"]);
    if (data["type"] == "response.output_text.delta") text += data["delta"].get<std::string>();
    if (data["type"] == "response.completed") {
      EXPECT_EQ(data["response"]["output"][0]["content"][0]["text"], text);
    }
  }
  EXPECT_EQ(text, "Hello world, this is a fake model speaking.");
  ASSERT_GE(types.size(), 9u);
  EXPECT_EQ(types[0], "response.created");
  EXPECT_EQ(types[1], "response.in_progress");
  EXPECT_EQ(types[2], "response.output_item.added");
  EXPECT_EQ(types[3], "response.content_part.added");
  EXPECT_EQ(types[types.size() - 4], "response.output_text.done");
  EXPECT_EQ(types[types.size() - 3], "response.content_part.done");
  EXPECT_EQ(types[types.size() - 2], "response.output_item.done");
  EXPECT_EQ(types.back(), "response.completed");
  // Errors keep the OpenAI shape.
  HttpResult bad = post("/v1/responses", {{"model", "fake"}, {"input", "hi"}, {"store", true}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(error_of(bad)["param"], "store");
}

TEST_F(ApiTest, AdminRoutesNeedAnAdminKey) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-user")};
  start(cfg);
  HttpOptions user;
  user.headers = {"Authorization: Bearer sk-user"};
  // An ordinary key is authenticated but lacks the scope; no admin keys are configured at all.
  HttpResult pull = post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}}, user);
  EXPECT_EQ(pull.status, 403) << pull.body;
  EXPECT_EQ(error_of(pull)["code"], "permission_denied");
  EXPECT_NE(error_of(pull)["message"].get<std::string>().find("admin_api_keys"), std::string::npos);
  EXPECT_EQ(http("DELETE", url("/v1/models/fake"), "", user).status, 403);
  EXPECT_EQ(http("DELETE", url("/v1/models/fake")).status, 401) << "no key at all is still 401";
}

TEST_F(ApiTest, AdminKeysOpenTheAdminRoutesAndWorkEverywhere) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-user")};
  config::ApiKey admin = key_for("sk-admin");
  admin.identity = "admin1";
  cfg.admin_api_keys = {admin};
  start(cfg);
  HttpOptions user, root;
  user.headers = {"Authorization: Bearer sk-user"};
  root.headers = {"Authorization: Bearer sk-admin"};
  EXPECT_EQ(post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}}, user).status, 403);
  // The admin passes the scope check; this server has no store, so the pull is unavailable.
  EXPECT_EQ(post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}}, root).status, 503);
  EXPECT_EQ(post("/v1/chat/completions", chat_body(), root).status, 200) << "an admin key is an API key";
  HttpResult del = http("DELETE", url("/v1/models/fake"), "", root);
  EXPECT_EQ(del.status, 403) << "configured models stay even for an admin";
}

TEST_F(ApiTest, AnUnauthenticatedServerOffLoopbackRefusesTheAdminRoutes) {
  config::Config cfg;
  cfg.host = "0.0.0.0";  // all addresses (reached here through 127.0.0.1)
  cfg.allow_unauthenticated = true;
  start(cfg);
  HttpResult pull = post("/v1/models/pull", {{"model", "https://example.invalid/m.gguf"}});
  EXPECT_EQ(pull.status, 403) << pull.body;
  EXPECT_EQ(error_of(pull)["code"], "permission_denied");
  EXPECT_EQ(http("DELETE", url("/v1/models/other")).status, 403);
  EXPECT_EQ(post("/v1/chat/completions", chat_body()).status, 200) << "the other routes stay open as configured";
}

TEST_F(ApiTest, HealthWithoutAKeyShowsOnlyTheStatusWhenKeysAreSet) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-user")};
  start(cfg);
  HttpResult bare = get("/health");
  ASSERT_EQ(bare.status, 200);
  EXPECT_EQ(json::parse(bare.body), json({{"status", "ok"}}));
  HttpOptions user;
  user.headers = {"Authorization: Bearer sk-user"};
  const json full = json::parse(get("/health", user).body);
  EXPECT_TRUE(full.contains("models"));
  EXPECT_TRUE(full.contains("settings"));
  EXPECT_TRUE(full.contains("privacy"));
}

TEST_F(ApiTest, HealthPublicDetailsShowsThemWithoutAKey) {
  config::Config cfg;
  cfg.api_keys = {key_for("sk-user")};
  cfg.health_public_details = true;
  start(cfg);
  const json j = json::parse(get("/health").body);
  EXPECT_TRUE(j.contains("models"));
  EXPECT_EQ(j["settings"]["health_public_details"], true);
}

TEST_F(ApiTest, ALoopbackServerRefusesForeignHostAndOriginNames) {
  start();
  auto status_of = [&](const std::string& headers) {
    const std::string r = testing::raw_exchange(
        port_, "DELETE /v1/models/other HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n");
    return r.substr(0, 12);
  };
  // DNS rebinding: the page's own name in Host.
  EXPECT_EQ(status_of("Host: attacker.example:1234\r\n"), "HTTP/1.1 403");
  // A cross-site request from the user's browser.
  EXPECT_EQ(status_of("Host: 127.0.0.1\r\nOrigin: https://evil.example\r\n"), "HTTP/1.1 403");
  EXPECT_EQ(status_of("Host: 127.0.0.1\r\nOrigin: null\r\n"), "HTTP/1.1 403");
  // Loopback names pass (the model does not exist: 404).
  EXPECT_EQ(status_of("Host: 127.0.0.1\r\n"), "HTTP/1.1 404");
  EXPECT_EQ(status_of("Host: localhost:8080\r\nOrigin: http://localhost:3000\r\n"), "HTTP/1.1 404");
  EXPECT_EQ(status_of("Host: [::1]:8080\r\nOrigin: http://127.0.0.1:3000\r\n"), "HTTP/1.1 404");
}

TEST_F(ApiTest, MetricsPublicWithKeys) {
  config::Config cfg;
  cfg.api_keys = {key_for("k")};
  cfg.metrics_public = true;
  start(cfg);
  EXPECT_EQ(get("/metrics").status, 200);
  EXPECT_EQ(get("/v1/models").status, 401);
}

TEST_F(ApiTest, FullQueueAnswers429WithRetryAfter) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  cfg.max_queue = 0;
  FakeOptions fo;
  fo.gate = std::make_shared<testing::Gate>();
  start(cfg, fo);
  auto first = std::async(std::launch::async, [&] { return post("/v1/chat/completions", chat_body()); });
  fo.gate->await_waiting(1);  // the first request holds the only slot
  HttpResult r = post("/v1/chat/completions", chat_body());
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(error_of(r)["code"], "rate_limited");
  EXPECT_EQ(error_of(r)["type"], "rate_limit_error");
  EXPECT_FALSE(r.headers["retry-after"].empty());
  fo.gate->open();
  EXPECT_EQ(first.get().status, 200);
}

TEST_F(ApiTest, NChoicesAreQueuedJobsAndAFullQueueRefusesThemAll) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  cfg.max_queue = 0;
  FakeOptions fo;
  fo.gate = std::make_shared<testing::Gate>();  // the first choice holds the slot until cancelled
  start(cfg, fo);
  // One slot, no queue: the second choice cannot be admitted, so the request is a 429 and the first
  // choice, admitted already, is stopped.
  HttpResult r = post("/v1/chat/completions", chat_body({{"n", 2}}));
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(error_of(r)["code"], "rate_limited");
  for (int i = 0; i < 2000 && metric("a3s_power_active_requests") != 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(metric("a3s_power_active_requests"), 0);
  fo.gate->open();
  HttpResult one = post("/v1/chat/completions", chat_body());
  EXPECT_EQ(one.status, 200) << one.body;
}

TEST_F(ApiTest, NChoicesRunOneAfterAnotherOnOneSlot) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  cfg.max_queue = 8;
  start(cfg);
  HttpResult r = post("/v1/chat/completions", chat_body({{"n", 3}}));
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  ASSERT_EQ(j["choices"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j["choices"][i]["index"], i);
    EXPECT_EQ(j["choices"][i]["message"]["content"], "Hello world, this is a fake model speaking.");
  }
  EXPECT_EQ(fake_.stats->generations, 3);
}

TEST_F(ApiTest, EmbeddingsOnAModelWithoutThemAre400AndTheRouteIsPostOnly) {
  start();
  HttpResult r = post("/v1/embeddings", {{"model", "fake"}, {"input", "hello"}});
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(error_of(r)["code"], "unsupported_model_feature");
  EXPECT_EQ(r.body.find("hello"), std::string::npos);
  HttpResult m = get("/v1/embeddings");
  EXPECT_EQ(m.status, 405);
  EXPECT_EQ(m.headers["allow"], "POST");
  EXPECT_EQ(post("/v1/embeddings", {{"model", "nope"}, {"input", "x"}}).status, 404);
}

TEST_F(ApiTest, AReasoningModelsThinkingGoesToReasoningContent) {
  FakeOptions fo;
  fo.output = "<think>\nFirst a plan.\n</think>\n\nThe answer.";
  fo.reasoning = chat::ReasoningStart::kOutside;
  start({}, fo);
  HttpResult r = post("/v1/chat/completions", chat_body());
  ASSERT_EQ(r.status, 200) << r.body;
  json message = json::parse(r.body)["choices"][0]["message"];
  EXPECT_EQ(message["reasoning_content"], "First a plan.");
  EXPECT_EQ(message["content"], "The answer.");
  // Streamed one byte per token: the deltas reassemble to the same parts, and no tag leaks.
  HttpResult s = post("/v1/chat/completions", chat_body({{"stream", true}}));
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.body.find("think>"), std::string::npos) << s.body;
  std::string reasoning, content;
  for (const json& c : testing::sse_json_chunks(s.body)) {
    if (c["choices"].empty()) continue;
    reasoning += c["choices"][0]["delta"].value("reasoning_content", "");
    content += c["choices"][0]["delta"].value("content", "");
  }
  EXPECT_EQ(reasoning, "First a plan.");
  EXPECT_EQ(content, "The answer.");
  // Text completions are never split.
  HttpResult t = post("/v1/completions", {{"model", "fake"}, {"prompt", "x"}});
  EXPECT_EQ(json::parse(t.body)["choices"][0]["text"], fo.output);
}

TEST_F(ApiTest, ToolCallsInTheReplyAreAnsweredAsToolCalls) {
  FakeOptions fo;
  fo.output = "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
              "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
  fo.tool_syntax = chat::ToolCallSyntax::kHermes;
  fo.n_ctx = 512;
  start({}, fo);
  const json tools = json::array({{{"type", "function"}, {"function", {{"name", "get_weather"}}}},
                                  {{"type", "function"}, {"function", {{"name", "get_time"}}}}});
  HttpResult r = post("/v1/chat/completions", chat_body({{"tools", tools}}));
  ASSERT_EQ(r.status, 200) << r.body;
  const json choice = json::parse(r.body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "Let me look.");
  const json calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(calls[0]["function"]["arguments"], "{\"city\": \"Paris\"}");  // as the model wrote it
  EXPECT_EQ(calls[1]["function"]["name"], "get_time");
  EXPECT_EQ(calls[0]["id"].get<std::string>().rfind("call_", 0), 0u);
  EXPECT_NE(calls[0]["id"], calls[1]["id"]);

  // Streamed one byte per token: the content, then each call whole as it closes, no markup.
  HttpResult s = post("/v1/chat/completions", chat_body({{"tools", tools}, {"stream", true}}));
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.body.find("tool_call>"), std::string::npos) << s.body;
  std::string content;
  std::vector<json> deltas;
  std::string finish;
  for (const json& c : testing::sse_json_chunks(s.body)) {
    if (c["choices"].empty()) continue;
    const json& d = c["choices"][0]["delta"];
    content += d.value("content", "");
    if (d.contains("tool_calls")) {
      for (const json& t : d["tool_calls"]) deltas.push_back(t);
    }
    if (!c["choices"][0]["finish_reason"].is_null()) finish = c["choices"][0]["finish_reason"];
  }
  EXPECT_EQ(content, "Let me look.");
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0]["index"], 0);
  EXPECT_EQ(deltas[1]["index"], 1);
  EXPECT_EQ(deltas[1]["function"]["name"], "get_time");
  EXPECT_EQ(deltas[1]["function"]["arguments"], "{}");
  EXPECT_EQ(finish, "tool_calls");

  // tool_choice "none": the reply is text, as written.
  HttpResult n = post("/v1/chat/completions", chat_body({{"tools", tools}, {"tool_choice", "none"}}));
  EXPECT_EQ(json::parse(n.body)["choices"][0]["message"]["content"], fo.output);
  EXPECT_EQ(json::parse(n.body)["choices"][0]["finish_reason"], "stop");
  // Without tools nothing is read either.
  HttpResult plain = post("/v1/chat/completions", chat_body());
  EXPECT_FALSE(json::parse(plain.body)["choices"][0]["message"].contains("tool_calls"));
}

TEST_F(ApiTest, APromptThatOpenedTheThinkBlockStartsInIt) {
  FakeOptions fo;
  fo.output = "plan</think>done";
  fo.reasoning = chat::ReasoningStart::kInside;
  start({}, fo);
  json message = json::parse(post("/v1/chat/completions", chat_body({{"n", 2}})).body)["choices"][1]["message"];
  EXPECT_EQ(message["reasoning_content"], "plan");
  EXPECT_EQ(message["content"], "done");
}

TEST_F(ApiTest, QueueTimeoutAnswers503) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  cfg.max_queue = 4;
  cfg.queue_timeout_seconds = 0.05;
  FakeOptions fo;
  fo.gate = std::make_shared<testing::Gate>();
  start(cfg, fo);
  auto first = std::async(std::launch::async, [&] { return post("/v1/chat/completions", chat_body()); });
  fo.gate->await_waiting(1);
  HttpResult r = post("/v1/chat/completions", chat_body({{"stream", true}}));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(error_of(r)["code"], "queue_timeout");
  EXPECT_EQ(error_of(r)["type"], "server_error");
  EXPECT_FALSE(r.headers["retry-after"].empty());
  fo.gate->open();
  EXPECT_EQ(first.get().status, 200);
}

TEST_F(ApiTest, DisconnectMidStreamCancelsAndFreesTheSlot) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  FakeOptions fo;
  fo.output = std::string(60, 'z');
  fo.per_token = 20ms;  // long enough that the client leaves long before the end
  start(cfg, fo);
  HttpOptions o;
  int chunks = 0;
  o.on_data = [&](std::string_view) { return ++chunks < 3; };
  HttpResult r = post("/v1/completions", {{"model", "fake"}, {"prompt", "x"}, {"stream", true}}, o);
  EXPECT_TRUE(r.aborted);
  // The generation notices at its next decode step; then the slot is free again.
  for (int i = 0; i < 2000 && (fake_.stats->running > 0 || metric("a3s_power_active_requests") != 0); ++i) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(metric("a3s_power_active_requests"), 0);
  EXPECT_EQ(fake_.stats->cancelled, 1);
  EXPECT_LT(fake_.stats->generations, 2);
  HttpResult next = post("/v1/completions", {{"model", "fake"}, {"prompt", "x"}, {"max_tokens", 2}});
  EXPECT_EQ(next.status, 200);
}

TEST_F(ApiTest, DisconnectWhileQueuedNeverRuns) {
  config::Config cfg;
  cfg.max_concurrent_requests = 1;
  FakeOptions fo;
  fo.gate = std::make_shared<testing::Gate>();
  start(cfg, fo);
  auto first = std::async(std::launch::async, [&] { return post("/v1/chat/completions", chat_body()); });
  fo.gate->await_waiting(1);
  HttpOptions o;
  o.timeout_ms = 300;  // gives up while queued
  HttpResult r = post("/v1/chat/completions", chat_body(), o);
  EXPECT_EQ(r.status, 0);
  std::this_thread::sleep_for(100ms);  // usually enough for the server to see the close
  fo.gate->open();
  EXPECT_EQ(first.get().status, 200);
  for (int i = 0; i < 2000 && metric("a3s_power_active_requests") != 0; ++i) std::this_thread::sleep_for(5ms);
  // The abandoned request is dropped from the queue, or (if the close was seen only later)
  // cancelled at its first step: only the first generation ever completes.
  EXPECT_EQ(fake_.stats->generations - fake_.stats->cancelled, 1);
}

TEST_F(ApiTest, KeepAliveReusesTheConnection) {
  start();
  testing::HttpSession s;
  ASSERT_EQ(s.request("GET", url("/health")).status, 200);
  ASSERT_EQ(s.request("POST", url("/v1/chat/completions"), chat_body().dump(),
                      HttpOptions{{"Content-Type: application/json"}, 60000, {}})
                .status,
            200);
  EXPECT_EQ(s.connects_made_by_last_request(), 0);
  ASSERT_EQ(s.request("POST", url("/v1/chat/completions"), chat_body({{"stream", true}}).dump(),
                      HttpOptions{{"Content-Type: application/json"}, 60000, {}})
                .status,
            200);
  ASSERT_EQ(s.request("GET", url("/v1/models")).status, 200);
  EXPECT_EQ(s.connects_made_by_last_request(), 0);
}

TEST_F(ApiTest, GracefulShutdownCancelsInFlightGenerations) {
  FakeOptions fo;
  fo.gate = std::make_shared<testing::Gate>();
  start({}, fo);
  auto inflight = std::async(std::launch::async, [&] {
    return post("/v1/chat/completions", chat_body({{"stream", true}}));
  });
  fo.gate->await_waiting(1);
  server_->request_shutdown();
  server_->wait();
  HttpResult r = inflight.get();
  // The stream had started (200): it ends with a service_unavailable error event, never [DONE].
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("\"service_unavailable\""), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos) << r.body;
  EXPECT_EQ(fake_.stats->cancelled, 1);
  server_.reset();
  EXPECT_EQ(http("GET", url("/health"), "", HttpOptions{{}, 2000, {}}).status, 0);
}

TEST(BindPolicy, StrictTeeModeOffLoopbackNeedsRatlsAndKeepsThePlainListenerOnLoopback) {
  config::Config cfg;
  cfg.host = "0.0.0.0";
  cfg.allow_unauthenticated = true;
  cfg.tee_mode = true;
  cfg.tee_policy = TeePolicy::kStrict;
  try {
    check_bind_policy(cfg);
    FAIL() << "strict mode off loopback without RA-TLS must not start";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kConfig);
    EXPECT_NE(std::string(e.what()).find("without RA-TLS"), std::string::npos) << e.what();
  }
  cfg.ratls = true;
  cfg.tls_port = 0;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  EXPECT_EQ(plain_listener_host(cfg), "127.0.0.1") << "the plain listener stays on loopback";
  // Development policy, or a loopback host: the plain listener binds as configured.
  cfg.tee_policy = TeePolicy::kDevelopment;
  EXPECT_EQ(plain_listener_host(cfg), "0.0.0.0");
  cfg.ratls = false;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.tee_policy = TeePolicy::kStrict;
  cfg.host = "127.0.0.1";
  EXPECT_NO_THROW(check_bind_policy(cfg));
  EXPECT_EQ(plain_listener_host(cfg), "127.0.0.1");
}

TEST(BindPolicy, NonLoopbackNeedsKeysOrExplicitOptIn) {
  config::Config cfg;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.host = "::1";
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.host = "localhost";
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.host = "0.0.0.0";
  try {
    check_bind_policy(cfg);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "config_error");
  }
  cfg.allow_unauthenticated = true;
  EXPECT_NO_THROW(check_bind_policy(cfg));
  cfg.allow_unauthenticated = false;
  cfg.api_keys.push_back({});
  EXPECT_NO_THROW(check_bind_policy(cfg));
  EXPECT_TRUE(is_loopback_host("127.0.0.5"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
  EXPECT_FALSE(is_loopback_host("example.com"));
}

}  // namespace
}  // namespace a3s::power::server

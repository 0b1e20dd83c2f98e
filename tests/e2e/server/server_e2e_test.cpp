// End-to-end: the real `a3s-power serve` binary with the real stories260K model, over loopback
// HTTP (libcurl). Every route, every error status, SSE framing, greedy output against llama.cpp's
// reference and against our own engine, stop strings, auth, admission limits, pull/delete,
// disconnects and graceful shutdown.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/gguf_builder.h"
#include "support/fake_http_server.h"
#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/sse_chunks.h"
#include "a3s/power/engine.h"
#include "chat/chat_template.h"
#include "engine/generator.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kStoriesSha = "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d";

json reference(const std::string& prompt_id) {
  std::ifstream f(testdata_dir() + "/reference/stories260K." + prompt_id + ".json");
  return json::parse(f);
}

HttpResult post(const ServerProcess& s, const std::string& path, const json& body, HttpOptions o = {}) {
  return http("POST", s.url(path), body.dump(), o);
}

json chat_body(json extra = json::object()) {
  json j = {{"model", "stories260K"},
            {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
            {"temperature", 0},
            {"max_tokens", 24}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  return j;
}

std::vector<json> sse_chunks(const HttpResult& r) { return sse_json_chunks(r.body); }

double metric(const ServerProcess& s, const std::string& series, HttpOptions o = {}) {
  std::string t = http("GET", s.url("/metrics"), "", o).body;
  auto pos = t.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(t.substr(pos + series.size() + 2));
}

// One server shared by the read-only tests of this suite.
class E2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess({"--model", stories_model()}); }
  static void TearDownTestSuite() {
    int status = server_->stop();
    EXPECT_EQ(status, 0) << "graceful shutdown must exit 0\n" << server_->log();
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << server_->log(); }
  static ServerProcess* server_;
};
ServerProcess* E2E::server_ = nullptr;

TEST_F(E2E, ListeningLineShowsTheRealPort) {
  EXPECT_EQ(server_->listening_line(), "listening on http://127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_GT(server_->port(), 0);
}

TEST_F(E2E, HealthReportsTheLoadedModel) {
  HttpResult r = http("GET", server_->url("/health"));
  ASSERT_EQ(r.status, 200);
  json j = json::parse(r.body);
  EXPECT_EQ(j["status"], "ok");
  ASSERT_EQ(j["models"].size(), 1u);
  EXPECT_EQ(j["models"][0]["name"], "stories260K");
  EXPECT_EQ(j["models"][0]["loaded"], true);
  EXPECT_EQ(j["models"][0]["n_ctx"], 2048);
  EXPECT_EQ(j["models"][0]["architecture"], "llama");
  EXPECT_TRUE(j["settings"].is_object());
  EXPECT_EQ(j["settings"]["port"], 0);
  EXPECT_EQ(j["tee"]["enabled"], false);
  EXPECT_EQ(j["tee"]["type"], "none");
  EXPECT_EQ(j["privacy"], json({{"redact_logs", false}, {"suppress_token_metrics", false}}));
}

TEST_F(E2E, GreedyCompletionMatchesLlamaCppReference) {
  json ref = reference("p1");
  HttpResult r = post(*server_, "/v1/completions",
                      {{"model", "stories260K"},
                       {"prompt", ref["prompt"]},
                       {"temperature", 0},
                       {"max_tokens", ref["greedy_tokens"].size()}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["choices"][0]["text"], ref["greedy_text"]);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["prompt_tokens"], ref["prompt_tokens"].size());
  EXPECT_EQ(j["usage"]["completion_tokens"], ref["greedy_tokens"].size());
  EXPECT_EQ(j["choices"][0]["text"].get<std::string>().rfind(", there was a little girl named Lily.", 0), 0u);
}

// What our engine produces for the same conversation, without the server.
std::string engine_chat_continuation(const json& messages, int max_tokens) {
  auto model = Model::load(stories_model(), {});
  Context ctx(model, {});
  const Tokenizer& tok = model->tokenizer();
  auto tmpl = chat::ChatTemplate::create(model->info().chat_template);
  chat::RenderOptions ro;
  ro.bos_token = tok.bos() >= 0 ? tok.token_text(tok.bos()) : "";
  ro.eos_token = tok.eos() >= 0 ? tok.token_text(tok.eos()) : "";
  std::string text = tmpl->render(messages, ro);
  bool has_bos = !ro.bos_token.empty() && text.rfind(ro.bos_token, 0) == 0;
  GenerationRequest req;
  req.prompt = tok.encode(text, !has_bos && tok.add_bos(), true);
  req.sampling.temperature = 0;
  req.max_tokens = max_tokens;
  return generate(ctx, req).text;
}

// What our engine produces for a text prompt, greedily, with a logit bias (none when empty).
GenerationResult engine_completion(const std::string& prompt, int max_tokens, std::vector<LogitBias> bias) {
  auto model = Model::load(stories_model(), {});
  Context ctx(model, {});
  const Tokenizer& tok = model->tokenizer();
  GenerationRequest req;
  req.prompt = tok.encode(prompt, tok.add_bos(), /*parse_special=*/false);
  req.sampling.temperature = 0;
  req.sampling.logit_bias = std::move(bias);
  req.max_tokens = max_tokens;
  return generate(ctx, req);
}

TEST_F(E2E, LogitBiasBansAndForcesTokensAsTheEngineDoes) {
  const std::string prompt = "Once upon a time";
  auto completion = [&](const json& bias) {
    json body = {{"model", "stories260K"}, {"prompt", prompt}, {"temperature", 0}, {"max_tokens", 6}};
    if (!bias.is_null()) body["logit_bias"] = bias;
    HttpResult r = post(*server_, "/v1/completions", body);
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
  };
  const GenerationResult plain = engine_completion(prompt, 6, {});
  ASSERT_GE(plain.tokens.size(), 2u);
  EXPECT_EQ(completion(nullptr)["choices"][0]["text"], plain.text);  // same prompt tokens as the server

  // Banned: the greedy first token can no longer come first, and the server answers what the engine
  // answers under the same bias.
  const Token first = plain.tokens[0];
  const GenerationResult banned = engine_completion(prompt, 6, {{first, -100.0f}});
  ASSERT_FALSE(banned.tokens.empty());
  EXPECT_NE(banned.tokens[0], first);
  for (Token t : banned.tokens) EXPECT_NE(t, first);
  EXPECT_NE(banned.text, plain.text);
  EXPECT_EQ(completion({{std::to_string(first), -100}})["choices"][0]["text"], banned.text);

  // Forced: +100 on one token makes every generated token that token, on both routes.
  auto model = Model::load(stories_model(), {});
  // The first token whose piece is a plain lower-case word (no space to trim, nothing special).
  const Tokenizer& tok = model->tokenizer();
  Token word = -1;
  for (Token t = 0; t < tok.n_vocab() && word < 0; ++t) {
    const std::string p = tok.token_to_piece(t);
    if (p.size() >= 2 && p.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos) word = t;
  }
  ASSERT_GE(word, 0);
  const std::string piece = tok.token_to_piece(word);
  std::string expected;
  for (int i = 0; i < 6; ++i) expected += piece;
  json forced = completion({{std::to_string(word), 100}});
  EXPECT_EQ(forced["choices"][0]["text"], expected);
  EXPECT_EQ(forced["usage"]["completion_tokens"], 6);
  HttpResult c = post(*server_, "/v1/chat/completions",
                      chat_body({{"max_tokens", 6}, {"logit_bias", {{std::to_string(word), 100}}}}));
  ASSERT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(json::parse(c.body)["choices"][0]["message"]["content"], expected);

  // A token id beyond the vocabulary is a 400 naming logit_bias (and the vocabulary's size, not the
  // id); the server
  // still serves.
  const int n_vocab = tok.n_vocab();
  for (const int id : {n_vocab, 2147483647}) {
    HttpResult bad = post(*server_, "/v1/completions",
                          {{"model", "stories260K"}, {"prompt", prompt}, {"logit_bias", {{std::to_string(id), 1}}}});
    EXPECT_EQ(bad.status, 400) << bad.body;
    const json e = json::parse(bad.body, nullptr, false);
    EXPECT_EQ(e["error"]["param"], "logit_bias") << bad.body;
    if (id != n_vocab) {
      EXPECT_EQ(bad.body.find(std::to_string(id)), std::string::npos) << bad.body;
    }
  }
  EXPECT_EQ(completion({{std::to_string(n_vocab - 1), 1}})["choices"][0]["finish_reason"].is_string(), true);
}

TEST_F(E2E, EchoPutsThePromptAsGivenBeforeTheCompletion) {
  const std::string prompt = "Once upon a time";
  json body = {{"model", "stories260K"}, {"prompt", prompt}, {"temperature", 0}, {"max_tokens", 8}};
  HttpResult plain = post(*server_, "/v1/completions", body);
  ASSERT_EQ(plain.status, 200) << plain.body;
  const json pj = json::parse(plain.body);
  const std::string completion = pj["choices"][0]["text"];
  ASSERT_FALSE(completion.empty());

  body["echo"] = true;
  HttpResult echoed = post(*server_, "/v1/completions", body);
  ASSERT_EQ(echoed.status, 200) << echoed.body;
  const json ej = json::parse(echoed.body);
  EXPECT_EQ(ej["choices"][0]["text"], prompt + completion);
  EXPECT_EQ(ej["usage"], pj["usage"]);  // the echoed prompt is not counted as completion

  // Streamed: the prompt is the first text chunk, then the same deltas.
  body["stream"] = true;
  HttpResult s = post(*server_, "/v1/completions", body);
  ASSERT_EQ(s.status, 200) << s.body;
  auto chunks = sse_chunks(s);
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks[0]["choices"][0]["text"], prompt);
  EXPECT_TRUE(chunks[0]["choices"][0]["finish_reason"].is_null());
  std::string all;
  for (const auto& c : chunks) {
    if (!c["choices"].empty()) all += c["choices"][0].value("text", "");
  }
  EXPECT_EQ(all, prompt + completion);

  // Chat has no echo.
  HttpResult chat = post(*server_, "/v1/chat/completions", chat_body({{"echo", true}}));
  EXPECT_EQ(chat.status, 400);
  EXPECT_EQ(json::parse(chat.body)["error"]["param"], "echo");
}

TEST_F(E2E, GreedyChatEqualsTheModelsContinuation) {
  json body = chat_body();
  std::string expected = engine_chat_continuation(body["messages"], 24);
  ASSERT_FALSE(expected.empty());
  HttpResult r = post(*server_, "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(j["choices"][0]["message"]["content"], expected);
  EXPECT_EQ(j["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(j["model"], "stories260K");
  EXPECT_EQ(j["system_fingerprint"].get<std::string>().rfind("fp_", 0), 0u);
  EXPECT_EQ(j["usage"]["total_tokens"],
            j["usage"]["prompt_tokens"].get<int>() + j["usage"]["completion_tokens"].get<int>());

  // The stream carries the same text, framed as SSE, with a role delta first and usage last.
  HttpResult s = post(*server_, "/v1/chat/completions",
                      chat_body({{"stream", true}, {"stream_options", {{"include_usage", true}}}}));
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.headers["content-type"], "text/event-stream");
  auto chunks = sse_chunks(s);
  ASSERT_GE(chunks.size(), 3u);
  EXPECT_EQ(chunks[0]["choices"][0]["delta"]["role"], "assistant");
  std::string content;
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i]["object"], "chat.completion.chunk");
    EXPECT_EQ(chunks[i]["id"], chunks[0]["id"]);
    EXPECT_TRUE(chunks[i]["usage"].is_null());
    content += chunks[i]["choices"][0]["delta"].value("content", "");
  }
  EXPECT_EQ(content, expected);
  EXPECT_EQ(chunks[chunks.size() - 2]["choices"][0]["finish_reason"], j["choices"][0]["finish_reason"]);
  EXPECT_TRUE(chunks.back()["choices"].empty());
  EXPECT_EQ(chunks.back()["usage"], j["usage"]);
}

TEST_F(E2E, StopStringsSpanningTokensAreHonouredAndNeverLeaked) {
  json ref = reference("p1");
  // "rl na" spans the tokens of "girl" and " named".
  json body = {{"model", "stories260K"},
               {"prompt", "Once upon a time"},
               {"temperature", 0},
               {"max_tokens", 32},
               {"stop", {"rl na", "zzz"}}};
  HttpResult r = post(*server_, "/v1/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["choices"][0]["text"], ", there was a little gi");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  body["stream"] = true;
  HttpResult s = post(*server_, "/v1/completions", body);
  std::string text;
  for (auto& c : sse_chunks(s)) text += c["choices"][0]["text"].get<std::string>();
  EXPECT_EQ(text, ", there was a little gi");
  EXPECT_EQ(s.body.find("rl na"), std::string::npos);
}

TEST_F(E2E, CompletionsStreamFraming) {
  HttpResult s = post(*server_, "/v1/completions",
                      {{"model", "stories260K"},
                       {"prompt", {"Lily and Ben were"}},
                       {"max_tokens", 16},
                       {"seed", 7},
                       {"stream", true},
                       {"stream_options", {{"include_usage", true}}}});
  ASSERT_EQ(s.status, 200);
  auto chunks = sse_chunks(s);
  ASSERT_GE(chunks.size(), 2u);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) EXPECT_EQ(chunks[i]["object"], "text_completion");
  EXPECT_TRUE(chunks.back()["choices"].empty());
  EXPECT_LE(chunks.back()["usage"]["completion_tokens"].get<int>(), 16);
}

TEST_F(E2E, ModelsRoutes) {
  json list = json::parse(http("GET", server_->url("/v1/models")).body);
  EXPECT_EQ(list["object"], "list");
  ASSERT_EQ(list["data"].size(), 1u);
  EXPECT_EQ(list["data"][0]["id"], "stories260K");
  EXPECT_EQ(json::parse(http("GET", server_->url("/v1/models/stories260K")).body)["id"], "stories260K");
  HttpResult missing = http("GET", server_->url("/v1/models/missing"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["error"]["type"], "not_found_error");
  EXPECT_EQ(http("DELETE", server_->url("/v1/models/missing")).status, 404);
  HttpResult wrong = http("PUT", server_->url("/v1/models"), "{}");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.headers["allow"], "GET");
  EXPECT_EQ(http("GET", server_->url("/nope")).status, 404);
}

TEST_F(E2E, RequestErrors) {
  auto err = [](const HttpResult& r) { return json::parse(r.body)["error"]; };
  HttpResult bad_json = http("POST", server_->url("/v1/chat/completions"), "{\"model\": ");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_EQ(err(bad_json)["code"], "invalid_json");
  HttpResult bad_type = post(*server_, "/v1/chat/completions", chat_body({{"max_tokens", "ten"}}));
  EXPECT_EQ(bad_type.status, 400);
  EXPECT_EQ(err(bad_type)["param"], "max_tokens");
  for (const char* f : {"tools", "response_format"}) {  // malformed: named, never ignored
    HttpResult r = post(*server_, "/v1/chat/completions", chat_body({{f, {{"x", 1}}}}));
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(err(r)["code"], "invalid_request_error");
    EXPECT_EQ(err(r)["param"], f);
  }
  // Well-formed tools for a model without a chat template (no tool-call syntax to read back).
  HttpResult tools = post(*server_, "/v1/chat/completions",
                          chat_body({{"tools", {{{"type", "function"}, {"function", {{"name", "f"}}}}}}}));
  EXPECT_EQ(tools.status, 400);
  EXPECT_EQ(err(tools)["code"], "unsupported_field");
  EXPECT_EQ(err(tools)["param"], "tools");
  HttpResult audio = post(*server_, "/v1/chat/completions", chat_body({{"audio", {{"x", 1}}}}));
  EXPECT_EQ(err(audio)["code"], "unsupported_field");
  EXPECT_EQ(err(audio)["param"], "audio");
  HttpResult unknown = post(*server_, "/v1/chat/completions", chat_body({{"model", "no-such-model"}}));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(err(unknown)["code"], "model_not_found");
  // A prompt longer than the 2048-token context is refused, never truncated.
  std::string long_prompt;
  for (int i = 0; i < 800; ++i) long_prompt += "Once upon a time ";
  const std::string secret = "SECRET-e2e-5d1";
  HttpResult overflow = post(*server_, "/v1/completions",
                             {{"model", "stories260K"}, {"prompt", secret + long_prompt}, {"stream", true}});
  EXPECT_EQ(overflow.status, 400);
  EXPECT_EQ(err(overflow)["code"], "context_length_exceeded");
  EXPECT_EQ(overflow.body.find(secret), std::string::npos);
  EXPECT_EQ(server_->log().find(secret), std::string::npos);
}

TEST_F(E2E, MetricsExposition) {
  http("GET", server_->url("/v1/models/missing"));
  post(*server_, "/v1/chat/completions", chat_body({{"max_tokens", 4}}));
  // A request is counted when its exchange ends, just after the client has the last byte: poll.
  HttpResult r;
  for (int i = 0; i < 200; ++i) {
    r = http("GET", server_->url("/metrics"));
    if (r.body.find("route=\"/v1/chat/completions\",status=\"200\"}") != std::string::npos &&
        r.body.find("route=\"/v1/models/{id}\",status=\"404\"}") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"].rfind("text/plain", 0), 0u);
  const std::string& t = r.body;
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"/v1/models/{id}\",status=\"404\"}"),
            std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"/v1/chat/completions\",status=\"200\"}"),
            std::string::npos);
  EXPECT_NE(t.find("# TYPE a3s_power_http_request_duration_seconds histogram"), std::string::npos);
  EXPECT_NE(
      t.find("a3s_power_time_to_first_token_seconds_bucket{route=\"/v1/chat/completions\",le=\"+Inf\"}"),
      std::string::npos);
  EXPECT_GT(metric(*server_, "a3s_power_prompt_tokens_total"), 0);
  EXPECT_GT(metric(*server_, "a3s_power_completion_tokens_total"), 0);
  EXPECT_EQ(metric(*server_, "a3s_power_models_loaded"), 1);
  EXPECT_EQ(metric(*server_, "a3s_power_queued_requests"), 0);
  EXPECT_EQ(t.find("missing"), std::string::npos);
}

TEST_F(E2E, DisconnectMidStreamFreesTheSlot) {
  HttpOptions o;
  int pieces = 0;
  o.on_data = [&](std::string_view) { return ++pieces < 2; };
  HttpResult r = post(*server_, "/v1/completions",
                      {{"model", "stories260K"},
                       {"prompt", "Once upon a time"},
                       {"max_tokens", 2000},
                       {"temperature", 1.0},
                       {"seed", 1},
                       {"stream", true}},
                      o);
  EXPECT_TRUE(r.aborted);
  double active = -1;
  for (int i = 0; i < 1000; ++i) {
    active = metric(*server_, "a3s_power_active_requests");
    if (active == 0) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(active, 0);
  // The disconnected request's KV blocks are wiped and back in the pool.
  EXPECT_EQ(metric(*server_, "a3s_power_kv_cache_blocks{model=\"stories260K\",state=\"in_use\"}"), 0);
  EXPECT_EQ(metric(*server_, "a3s_power_kv_cache_blocks{model=\"stories260K\",state=\"reserved\"}"), 0);
  EXPECT_GT(metric(*server_, "a3s_power_kv_cache_blocks_wiped_total{model=\"stories260K\"}"), 0);
  EXPECT_EQ(metric(*server_, "vllm:num_requests_running"), 0);
  HttpResult next = post(*server_, "/v1/chat/completions", chat_body({{"max_tokens", 4}}));
  EXPECT_EQ(next.status, 200) << next.body;
}

TEST(E2EConfig, KvCacheMbSizesTheBlockPoolShownInHealthAndMetrics) {
  TempDir dir;
  ServerProcess s({"--config", dir.write("power.hcl", "kv_cache_mb = 1\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  HttpResult r = post(s, "/v1/completions", {{"model", "stories260K"}, {"prompt", "Once upon a time"}, {"max_tokens", 8}});
  ASSERT_EQ(r.status, 200) << r.body;
  json h = json::parse(http("GET", s.url("/health")).body);
  EXPECT_EQ(h["settings"]["kv_cache_mb"], 1);
  const json& kv = h["models"][0]["kv_cache"];
  ASSERT_TRUE(kv.is_object()) << h.dump();
  const uint64_t block = kv["block_bytes"].get<uint64_t>();
  ASSERT_GT(block, 0u);
  EXPECT_EQ(kv["blocks_total"].get<uint64_t>(), (1u << 20) / block);
  EXPECT_EQ(kv["blocks_in_use"], 0) << "the finished request's blocks are back";
  EXPECT_EQ(kv["block_tokens"], 32);
  EXPECT_EQ(metric(s, "vllm:kv_cache_usage_perc{model_name=\"stories260K\"}"), 0);
  EXPECT_EQ(metric(s, "a3s_power_kv_cache_blocks_total{model=\"stories260K\"}"), static_cast<double>((1u << 20) / block));
  EXPECT_EQ(s.stop(), 0);

}

TEST(E2EConfig, SuppressedTokenMetricsHideKvBlocksInUse) {
  TempDir dir;
  ServerProcess s({"--config", dir.write("power.hcl", "suppress_token_metrics = true\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  ASSERT_EQ(post(s, "/v1/completions", {{"model", "stories260K"}, {"prompt", "Once"}, {"max_tokens", 4}}).status, 200);
  json h = json::parse(http("GET", s.url("/health")).body);
  const json& kv = h["models"][0]["kv_cache"];
  ASSERT_TRUE(kv.is_object());
  EXPECT_FALSE(kv.contains("blocks_in_use"));
  EXPECT_FALSE(kv.contains("blocks_reserved"));
  EXPECT_TRUE(kv.contains("blocks_total"));
  EXPECT_EQ(metric(s, "vllm:kv_cache_usage_perc{model_name=\"stories260K\"}"), -1);
  EXPECT_EQ(s.stop(), 0);
}

// ---- Servers with their own configuration --------------------------------------------------------

TEST(E2EConfig, ApiKeysProtectV1AndMetrics) {
  TempDir dir;
  std::string cfg = dir.write("power.hcl", "api_keys = [\"sk-e2e-key\"]\n");
  ServerProcess s({"--config", cfg, "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  HttpOptions right, wrong;
  right.headers = {"Authorization: Bearer sk-e2e-key"};
  wrong.headers = {"Authorization: Bearer sk-e2e-kez"};
  HttpResult none = http("GET", s.url("/v1/models"));
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(json::parse(none.body)["error"]["type"], "authentication_error");
  EXPECT_EQ(http("GET", s.url("/v1/models"), "", wrong).status, 401);
  EXPECT_EQ(http("GET", s.url("/v1/models"), "", right).status, 200);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_body({{"max_tokens", 2}})).status, 401);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_body({{"max_tokens", 2}}), right).status, 200);
  EXPECT_EQ(http("GET", s.url("/health")).status, 200);
  EXPECT_EQ(http("GET", s.url("/metrics")).status, 401);
  EXPECT_EQ(http("GET", s.url("/metrics"), "", right).status, 200);
  EXPECT_EQ(s.stop(), 0);
  EXPECT_EQ(s.log().find("sk-e2e-ke"), std::string::npos);
}

TEST(E2EConfig, BodyLimitAnswers413) {
  ServerProcess s({"--model", stories_model()}, {{"A3S_POWER_MAX_BODY_BYTES", "2048"}});
  ASSERT_TRUE(s.ready()) << s.log();
  HttpResult r = post(s, "/v1/completions", {{"model", "stories260K"}, {"prompt", std::string(8192, 'a')}});
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "request_too_large");
  EXPECT_EQ(
      post(s, "/v1/completions", {{"model", "stories260K"}, {"prompt", "Once"}, {"max_tokens", 2}}).status,
      200);
}

// Fires `n` streaming requests at once; returns their statuses.
std::vector<long> burst(const ServerProcess& s, int n, int max_tokens) {
  std::vector<long> statuses(n);
  std::vector<std::thread> ts;
  std::atomic<int> ready{0};
  for (int i = 0; i < n; ++i) {
    ts.emplace_back([&, i] {
      ++ready;
      while (ready.load() < n) std::this_thread::yield();
      statuses[i] = post(s, "/v1/completions",
                         {{"model", "stories260K"},
                          {"prompt", "Once upon a time"},
                          {"max_tokens", max_tokens},
                          {"temperature", 0},
                          {"stream", true}})
                        .status;
    });
  }
  for (auto& t : ts) t.join();
  return statuses;
}

TEST(E2EConfig, FullQueueAnswers429) {
  TempDir dir;
  std::string cfg = dir.write("power.hcl", "max_concurrent_requests = 1\nmax_queue = 0\n");
  ServerProcess s({"--config", cfg, "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  int n429 = 0, n200 = 0, other = 0;
  for (int round = 0; round < 20 && (n429 == 0 || n200 == 0); ++round) {
    for (long st : burst(s, 12, 400)) (st == 429 ? n429 : st == 200 ? n200 : other)++;
  }
  EXPECT_GT(n429, 0);
  EXPECT_GT(n200, 0);
  EXPECT_EQ(other, 0);
  // Then the server serves again: the single slot is released when the last burst exchange ends,
  // just after its client has the response, so a request sent at once may still meet a busy slot.
  HttpResult r;
  for (int i = 0; i < 100; ++i) {
    r = post(s, "/v1/completions", {{"model", "stories260K"}, {"prompt", "x"}, {"max_tokens", 2}});
    if (r.status != 429) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(r.status, 200);
}

TEST(E2EConfig, QueueTimeoutAnswers503) {
  TempDir dir;
  std::string cfg =
      dir.write("power.hcl", "max_concurrent_requests = 1\nmax_queue = 64\nqueue_timeout = 0.001\n");
  ServerProcess s({"--config", cfg, "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  // A burst waits behind one slot with a 1 ms queue timeout: the requests behind the first time out.
  // On a loaded machine even the first may wait past 1 ms, so rounds go on until both outcomes came.
  int n503 = 0, n200 = 0, other = 0;
  for (int round = 0; round < 20 && (n503 == 0 || n200 == 0); ++round) {
    for (long st : burst(s, 8, 400)) (st == 503 ? n503 : st == 200 ? n200 : other)++;
  }
  EXPECT_GT(n503, 0);
  EXPECT_GT(n200, 0);
  EXPECT_EQ(other, 0);
}

// A TLS origin on loopback: `openssl s_server -WWW` serving a directory, with a certificate for
// 127.0.0.1 from a throwaway CA (ca.pem) that the server under test is told to trust (pull_ca_file).
class TlsOrigin {
 public:
  explicit TlsOrigin(const std::string& file_name, const std::string& source) : port_(unused_port()) {
    std::filesystem::copy_file(source, dir_.file(file_name));
    const std::string d = shell_quote(dir_.path());
    const ProcessResult pki = run_shell(
        "cd " + d + " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key "
        "-out ca.pem -days 2 -subj /CN=a3s-test-ca && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
        "-nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 && printf 'subjectAltName=IP:127.0.0.1\\n' > ext "
        "&& openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 "
        "-extfile ext");
    EXPECT_EQ(pki.status, 0) << pki.out;
    pid_ = spawn_process("/bin/sh",
                         {"-c", "cd " + d + " && exec openssl s_server -quiet -WWW -accept 127.0.0.1:" +
                                    std::to_string(port_) + " -cert srv.pem -key srv.key"},
                         child_environment({}), ChildStdio{});
    for (int i = 0; i < 200 && run_shell("openssl s_client -connect 127.0.0.1:" + std::to_string(port_) +
                                         " </dev/null >/dev/null 2>&1").status != 0;
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ~TlsOrigin() {
    ::kill(pid_, SIGTERM);
    wait_for_exit(pid_, std::chrono::seconds(10));
  }
  std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port_) + path; }
  std::string ca_file() const { return dir_.path() + "/ca.pem"; }

 private:
  TempDir dir_;
  int port_;
  pid_t pid_ = -1;
};

TEST(E2EConfig, PullNeedsTheAdminScopeAndTlsAndDeleteOnlyUnloads) {
  TlsOrigin origin("model.gguf", stories_model());
  TempDir home;
  ServerProcess s({"--model", stories_model()}, {{"A3S_POWER_HOME", home.path()},
                                                 {"A3S_POWER_API_KEYS", "sk-user"},
                                                 {"A3S_POWER_ADMIN_API_KEYS", "sk-admin"},
                                                 {"A3S_POWER_PULL_CA_FILE", origin.ca_file()}});
  ASSERT_TRUE(s.ready()) << s.log();
  EXPECT_NE(s.log().find("auth: 1 API key(s), 1 admin key(s)"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("stories260K; store models only when configured or pulled"), std::string::npos)
      << s.log();
  HttpOptions user, admin;
  user.headers = {"Authorization: Bearer sk-user"};
  admin.headers = {"Authorization: Bearer sk-admin"};
  const std::string source = origin.url("/model.gguf");

  // An ordinary key may not pull.
  HttpResult no_scope = post(s, "/v1/models/pull", {{"model", source}, {"name", "pulled"}}, user);
  EXPECT_EQ(no_scope.status, 403) << no_scope.body;
  EXPECT_NE(no_scope.body.find("permission_denied"), std::string::npos);
  // Local paths and plain http:// (even to loopback: the server's own port) are refused, before any
  // progress and without naming server paths.
  for (const std::string& ref : {std::string("/etc/passwd"), std::string("/root"), s.url("/health")}) {
    HttpResult r = post(s, "/v1/models/pull", {{"model", ref}}, admin);
    EXPECT_EQ(r.status, 400) << ref << " " << r.body;
    EXPECT_NE(r.body.find("https:// URLs and hf:// references only"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("total"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find(home.path()), std::string::npos) << r.body;
  }
  // A wrong pin is refused and nothing is served.
  HttpResult bad =
      post(s, "/v1/models/pull", {{"model", source}, {"name", "pinned"}, {"sha256", std::string(64, '0')}}, admin);
  EXPECT_TRUE(bad.status == 400 || bad.body.find("\"error\"") != std::string::npos) << bad.status << bad.body;
  EXPECT_EQ(bad.body.find(home.path()), std::string::npos) << bad.body;
  EXPECT_EQ(http("GET", s.url("/v1/models/pinned"), "", user).status, 404);

  HttpResult r = post(s, "/v1/models/pull", {{"model", source}, {"name", "pulled"}, {"sha256", kStoriesSha}}, admin);
  ASSERT_EQ(r.status, 200) << r.body << s.log();
  std::vector<std::string> events;
  std::string problem;
  ASSERT_TRUE(split_sse(r.body, events, problem)) << problem;
  ASSERT_FALSE(events.empty());
  json last = json::parse(events.back());
  EXPECT_EQ(last["status"], "success") << r.body;
  EXPECT_EQ(last["digest"], std::string("sha256:") + kStoriesSha);

  // The pulled model joins the served set (the store is not served on demand here).
  HttpResult c = post(s, "/v1/chat/completions", chat_body({{"model", "pulled"}, {"max_tokens", 4}}), user);
  EXPECT_EQ(c.status, 200) << c.body;

  // DELETE needs the admin scope, refuses a configured model, and only unloads: the store keeps it.
  EXPECT_EQ(http("DELETE", s.url("/v1/models/pulled"), "", user).status, 403);
  EXPECT_EQ(http("DELETE", s.url("/v1/models/stories260K"), "", admin).status, 403);
  HttpResult del = http("DELETE", s.url("/v1/models/pulled"), "", admin);
  EXPECT_EQ(del.status, 200) << del.body;
  EXPECT_EQ(http("GET", s.url("/v1/models/pulled"), "", user).status, 404);
  EXPECT_EQ(post(s, "/v1/chat/completions", chat_body(), user).status, 200) << "the configured model stays";
  EXPECT_EQ(s.stop(), 0);
  RunOptions list_opts;
  list_opts.env = {{"A3S_POWER_HOME", home.path()}};
  const ProcessResult list = run_process(bin_path("a3s-power"), {"list"}, list_opts);
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("pulled"), std::string::npos) << "DELETE never removes store files\n" << list.out;
}

TEST(E2EConfig, StartupLogNamesAuthAndWarnsAboutUnknownVariables) {
  ServerProcess s({"--model", stories_model()}, {{"A3S_POWER_PROT", "8080"},
                                                 {"A3S_POWER_API_KEY", "sk-client-key"},
                                                 {"A3S_POWER_REDACT_LOGS", "true"}});
  ASSERT_TRUE(s.ready()) << s.log();
  EXPECT_NE(s.log().find("auth: no authentication, loopback only"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("unknown variable A3S_POWER_PROT"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("A3S_POWER_API_KEY is the clients' variable"), std::string::npos) << s.log();
  EXPECT_EQ(s.log().find("sk-client-key"), std::string::npos);
  // A method outside the standard set is logged as "other"; durations are powers of two under redaction.
  raw_exchange(s.port(), "BREWCOFFEE /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(http("GET", s.url("/health")).status, 200);
  EXPECT_EQ(s.stop(), 0);
  EXPECT_EQ(s.log().find("BREWCOFFEE"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("method=other"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("duration_ms_le="), std::string::npos) << s.log();
  EXPECT_EQ(s.log().find("duration_ms="), std::string::npos) << s.log();
}

// A model with something the engine does not compute (a tensor the graph does not use, a rope
// scaling type it does not implement) stops the server at startup with the name, exit 2, before it
// listens.
TEST(E2EConfig, AModelWithAFeatureTheEngineDoesNotComputeRefusesToStart) {
  TempDir dir;
  const std::string base = testdata_dir() + "/models/tiny-llama-f32.gguf";
  const std::string extra = dir.path() + "/extra.gguf", longrope = dir.path() + "/longrope.gguf";
  testing::write_derived_model(base,
                               {.name = "extra", .base = "tiny-llama-f32",
                                .tensors = {{"blk.2.attn_output.bias", std::vector<float>(256, 1.0f)}}},
                               extra);
  testing::write_derived_model(
      base, {.name = "longrope", .base = "tiny-llama-f32", .keys = {{"llama.rope.scaling.type", testing::string_value("longrope")}}},
      longrope);
  for (const auto& [path, name] : {std::pair{extra, std::string("blk.2.attn_output.bias")},
                                   std::pair{longrope, std::string("rope scaling \"longrope\"")}}) {
    ServerProcess s({"--model", path});
    EXPECT_FALSE(s.ready());
    EXPECT_EQ(s.stop(), 2) << s.log();
    EXPECT_NE(s.log().find(name), std::string::npos) << s.log();
  }
}

TEST(E2EConfig, NonLoopbackWithoutKeysRefusesToStart) {
  ServerProcess s({"--host", "0.0.0.0", "--model", stories_model()});
  EXPECT_FALSE(s.ready());
  EXPECT_EQ(s.stop(), 2) << s.log();
  EXPECT_NE(s.log().find("allow_unauthenticated"), std::string::npos) << s.log();
}

TEST(E2EConfig, ShutdownDuringAStreamExitsZero) {
  ServerProcess s({"--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  std::atomic<bool> got_data{false};
  std::thread client([&] {
    HttpOptions o;
    o.on_data = [&](std::string_view) {
      got_data = true;
      return true;
    };
    post(s, "/v1/completions",
         {{"model", "stories260K"},
          {"prompt", "Once"},
          {"max_tokens", 2000},
          {"temperature", 1.0},
          {"stream", true}},
         o);
  });
  for (int i = 0; i < 500 && !got_data; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(s.stop(), 0) << s.log();
  client.join();
}

}  // namespace
}  // namespace a3s::power::testing

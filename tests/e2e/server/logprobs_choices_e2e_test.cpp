// End-to-end: log probabilities and n choices through the real server binary and the real
// stories260K model. Each reported log probability is the log-softmax of the row `a3s-power logits`
// writes for the same tokens (within 1e-4), its alternatives are that row's most probable tokens,
// and a stream carries the same values as a body. n choices come back in index order, greedy ones
// equal, sampled ones reproducible from the seed and not all equal; a stream interleaves them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/sse_chunks.h"
#include "support/temp_dir.h"
#include "support/test_data.h"
#include "a3s/power/engine.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::testing {
namespace logprobs_choices_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;

class LogprobsChoicesE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--model", stories_model()});  // 4 concurrent requests
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << server_->log(); }

  static json post(const std::string& route, const json& body, int expect_status = 200) {
    const HttpResult r = http("POST", server_->url(route), body.dump());
    EXPECT_EQ(r.status, expect_status) << r.body;
    return json::parse(r.body, nullptr, false);
  }
  // The chunks of a stream (without [DONE]).
  static std::vector<json> stream(const std::string& route, json body) {
    body["stream"] = true;
    const HttpResult r = http("POST", server_->url(route), body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return sse_json_chunks(r.body);
  }

  static inline ServerProcess* server_ = nullptr;
};

// `a3s-power logits` for an exact token sequence: one row of n_vocab floats per token.
std::vector<std::vector<float>> logits_command(const std::vector<Token>& tokens, int n_vocab) {
  TempDir dir;
  std::string list;
  for (Token t : tokens) list += (list.empty() ? "" : ",") + std::to_string(t);
  const std::string out = dir.path() + "/logits.f32";
  const ProcessResult r =
      run_process(bin_path("a3s-power"), {"logits", "--model", stories_model(), "--tokens", list, "--out", out});
  EXPECT_EQ(r.status, 0) << r.out;
  std::ifstream f(out, std::ios::binary);
  std::vector<std::vector<float>> rows(tokens.size(), std::vector<float>(static_cast<size_t>(n_vocab)));
  for (auto& row : rows) f.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(row.size() * 4));
  EXPECT_TRUE(f.good());
  return rows;
}

std::vector<double> log_softmax(const std::vector<float>& row) {
  const double mx = *std::max_element(row.begin(), row.end());
  double z = 0;
  for (float v : row) z += std::exp(v - mx);
  std::vector<double> out;
  for (float v : row) out.push_back(v - mx - std::log(z));
  return out;
}

TEST_F(LogprobsChoicesE2E, CompletionLogprobsAreTheLogSoftmaxOfTheLogitsCommand) {
  const std::string prompt = "Once upon a time";
  const int k = 5;
  const json body = {{"model", "stories260K"}, {"prompt", prompt}, {"temperature", 0}, {"max_tokens", 10},
                     {"logprobs", k}};
  const json j = post("/v1/completions", body);
  const json& lp = j["choices"][0]["logprobs"];
  ASSERT_TRUE(lp.is_object()) << j.dump();
  const size_t n = lp["tokens"].size();
  ASSERT_EQ(n, j["usage"]["completion_tokens"].get<size_t>());
  ASSERT_EQ(lp["token_logprobs"].size(), n);
  ASSERT_EQ(lp["top_logprobs"].size(), n);
  ASSERT_EQ(lp["text_offset"].size(), n);

  // The same tokens through the engine's tokenizer, then the logits command over prompt + output.
  auto model = Model::load(stories_model(), {});
  const Tokenizer& tok = model->tokenizer();
  std::vector<Token> seq = tok.encode(prompt, tok.add_bos(), /*parse_special=*/false);
  const size_t n_prompt = seq.size();
  std::string joined;
  for (size_t i = 0; i < n; ++i) {
    // Greedy: the chosen token is the row's argmax, so its piece is the first alternative.
    const json& top = lp["top_logprobs"][i];
    ASSERT_EQ(top.size(), static_cast<size_t>(k));
    joined += lp["tokens"][i].get<std::string>();
  }
  EXPECT_EQ(joined, j["choices"][0]["text"]);
  // Recover the generated ids by greedy decoding with the engine (the same prompt tokens).
  Context ctx(model, {});
  std::span<const float> row = ctx.eval(seq);
  for (size_t i = 0; i < n; ++i) {
    const Token t = static_cast<Token>(std::max_element(row.begin(), row.end()) - row.begin());
    EXPECT_EQ(tok.token_to_piece(t, true), lp["tokens"][i]) << i;
    seq.push_back(t);
    const Token next[1] = {t};
    row = ctx.eval(next);
  }
  const auto rows = logits_command(seq, tok.n_vocab());
  size_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::vector<double> ls = log_softmax(rows[n_prompt - 1 + i]);
    const Token t = seq[n_prompt + i];
    EXPECT_NEAR(lp["token_logprobs"][i].get<double>(), ls[static_cast<size_t>(t)], 1e-4) << i;
    // The alternatives: the row's k most probable tokens with their log probabilities.
    std::vector<Token> ids(ls.size());
    for (size_t v = 0; v < ids.size(); ++v) ids[v] = static_cast<Token>(v);
    std::stable_sort(ids.begin(), ids.end(), [&](Token a, Token b) { return ls[a] > ls[b]; });
    for (int r = 0; r < k; ++r) {
      const std::string piece = tok.token_to_piece(ids[static_cast<size_t>(r)], true);
      ASSERT_TRUE(lp["top_logprobs"][i].contains(piece)) << i << " " << r;
      EXPECT_NEAR(lp["top_logprobs"][i][piece].get<double>(), ls[static_cast<size_t>(ids[static_cast<size_t>(r)])], 1e-4);
    }
    EXPECT_EQ(lp["text_offset"][i], offset);
    offset += lp["tokens"][i].get<std::string>().size();
  }

  // The stream carries the same values, chunk by chunk.
  json merged = {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()},
                 {"text_offset", json::array()}};
  for (const json& c : stream("/v1/completions", body)) {
    if (c["choices"].empty() || c["choices"][0]["logprobs"].is_null()) continue;
    for (auto it = merged.begin(); it != merged.end(); ++it)
      for (const json& v : c["choices"][0]["logprobs"][it.key()]) it->push_back(v);
  }
  EXPECT_EQ(merged, lp);
}

TEST_F(LogprobsChoicesE2E, ChatLogprobsInTheOpenAIShapeAndTheSameWhenStreamed) {
  json body = {{"model", "stories260K"},
               {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
               {"temperature", 0},
               {"max_tokens", 12},
               {"logprobs", true},
               {"top_logprobs", 3}};
  const json j = post("/v1/chat/completions", body);
  const json& lp = j["choices"][0]["logprobs"];
  ASSERT_TRUE(lp.is_object()) << j.dump();
  EXPECT_TRUE(lp["refusal"].is_null());
  const json& content = lp["content"];
  ASSERT_EQ(content.size(), j["usage"]["completion_tokens"].get<size_t>());
  std::string joined;
  for (const json& e : content) {
    joined += e["token"].get<std::string>();
    EXPECT_LE(e["logprob"].get<double>(), 0.0);
    ASSERT_EQ(e["top_logprobs"].size(), 3u);
    // Greedy: the chosen token is the most probable one; the alternatives are in order.
    EXPECT_EQ(e["top_logprobs"][0]["token"], e["token"]);
    EXPECT_DOUBLE_EQ(e["top_logprobs"][0]["logprob"].get<double>(), e["logprob"].get<double>());
    EXPECT_GE(e["top_logprobs"][1]["logprob"].get<double>(), e["top_logprobs"][2]["logprob"].get<double>());
    std::string bytes;
    for (const json& b : e["bytes"]) bytes += static_cast<char>(b.get<int>());
    EXPECT_EQ(bytes, e["token"]);
  }
  EXPECT_EQ(joined, j["choices"][0]["message"]["content"]);

  json streamed = json::array();
  for (const json& c : stream("/v1/chat/completions", body)) {
    if (c["choices"].empty()) continue;
    const json& l = c["choices"][0]["logprobs"];
    if (l.is_null()) continue;
    for (const json& e : l["content"]) streamed.push_back(e);
  }
  EXPECT_EQ(streamed, content);

  // top_logprobs 0 gives each token's own value with no alternatives; without logprobs, null.
  body["top_logprobs"] = 0;
  const json zero = post("/v1/chat/completions", body);
  for (const json& e : zero["choices"][0]["logprobs"]["content"]) EXPECT_TRUE(e["top_logprobs"].empty());
  body.erase("top_logprobs");
  body.erase("logprobs");
  EXPECT_TRUE(post("/v1/chat/completions", body)["choices"][0]["logprobs"].is_null());
  // Out of range: a 400 naming the field.
  body["logprobs"] = true;
  body["top_logprobs"] = 21;
  EXPECT_EQ(post("/v1/chat/completions", body, 400)["error"]["param"], "top_logprobs");
}

TEST_F(LogprobsChoicesE2E, NChoicesInIndexOrderGreedyEqualSampledReproducible) {
  json chat = {{"model", "stories260K"},
               {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
               {"temperature", 0},
               {"max_tokens", 10}};
  const json one = post("/v1/chat/completions", chat);
  chat["n"] = 3;
  const json three = post("/v1/chat/completions", chat);
  ASSERT_EQ(three["choices"].size(), 3u) << three.dump();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(three["choices"][i]["index"], i);
    EXPECT_EQ(three["choices"][i]["message"]["content"], one["choices"][0]["message"]["content"]);
    EXPECT_EQ(three["choices"][i]["finish_reason"], one["choices"][0]["finish_reason"]);
  }
  EXPECT_EQ(three["usage"]["prompt_tokens"], one["usage"]["prompt_tokens"]);  // the prompt counts once
  EXPECT_EQ(three["usage"]["completion_tokens"], 3 * one["usage"]["completion_tokens"].get<int>());

  // Sampled with a seed: four choices, not all alike, the same again for the same seed, and choice
  // 0 is what n = 1 gives with that seed.
  json text = {{"model", "stories260K"}, {"prompt", "Lily and Ben"}, {"temperature", 1.0}, {"seed", 11},
               {"max_tokens", 16}};
  const json single = post("/v1/completions", text);
  text["n"] = 4;
  const json a = post("/v1/completions", text);
  const json b = post("/v1/completions", text);
  ASSERT_EQ(a["choices"].size(), 4u);
  std::set<std::string> distinct;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(a["choices"][i]["index"], i);
    distinct.insert(a["choices"][i]["text"].get<std::string>());
  }
  EXPECT_GT(distinct.size(), 1u);
  EXPECT_EQ(a["choices"], b["choices"]);
  EXPECT_EQ(a["choices"][0]["text"], single["choices"][0]["text"]);

  // Streamed: the choices' chunks carry their index; each index reassembles to the body's choice,
  // with one finish chunk per choice, then the usage.
  text["stream_options"] = {{"include_usage", true}};
  const std::vector<json> chunks = stream("/v1/completions", text);
  std::map<int, std::string> texts;
  std::map<int, int> finishes;
  for (const json& c : chunks) {
    if (c["choices"].empty()) continue;
    ASSERT_EQ(c["choices"].size(), 1u);
    const int i = c["choices"][0]["index"];
    texts[i] += c["choices"][0]["text"].get<std::string>();
    if (!c["choices"][0]["finish_reason"].is_null()) ++finishes[i];
  }
  ASSERT_EQ(texts.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(texts[i], a["choices"][static_cast<size_t>(i)]["text"]) << i;
    EXPECT_EQ(finishes[i], 1) << i;
  }
  EXPECT_EQ(chunks.back()["usage"], a["usage"]);

  // Chat streams open every choice with its role delta.
  chat["stream"] = true;
  std::set<int> roles;
  for (const json& c : stream("/v1/chat/completions", chat)) {
    if (!c["choices"].empty() && c["choices"][0]["delta"].contains("role")) roles.insert(c["choices"][0]["index"].get<int>());
  }
  EXPECT_EQ(roles, (std::set<int>{0, 1, 2}));

  // Out of range: a 400 naming n; the server still answers.
  text["n"] = 9;
  EXPECT_EQ(post("/v1/completions", text, 400)["error"]["param"], "n");
  text["n"] = 0;
  EXPECT_EQ(post("/v1/completions", text, 400)["error"]["param"], "n");
  const json after = {{"model", "stories260K"}, {"messages", {{{"role", "user"}, {"content", "Hi"}}}}, {"max_tokens", 2}};
  EXPECT_EQ(post("/v1/chat/completions", after)["choices"].size(), 1u);
}

}  // namespace logprobs_choices_e2e
}  // namespace a3s::power::testing

// End-to-end: POST /v1/embeddings through the real server binary and the real stories260K model.
// The vectors equal llama.cpp's llama-embedding output (tests/data/reference/embeddings/) within
// 1e-3, for string, array and token-id inputs, as floats and as base64; bad inputs are clear 400s
// that echo nothing, and the server keeps serving.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/http_client.h"
#include "support/server_process.h"
#include "support/test_data.h"
#include "a3s/power/engine.h"
#include "crypto/base64.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::testing {
namespace embeddings_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;

class EmbeddingsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess({"--model", stories_model()}); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << server_->log(); }

  static json post(const json& body, int expect_status = 200) {
    const HttpResult r = http("POST", server_->url("/v1/embeddings"), body.dump());
    EXPECT_EQ(r.status, expect_status) << r.body;
    return json::parse(r.body, nullptr, false);
  }

  static inline ServerProcess* server_ = nullptr;
};

json reference() {
  std::ifstream f(std::string(A3S_SOURCE_DIR) + "/tests/data/reference/embeddings/stories260K.json");
  return json::parse(f);
}

double worst_difference(const json& got, const json& want) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    worst = std::max(worst, std::fabs(got[i].get<double>() - want[i].get<double>()));
  return worst;
}

TEST_F(EmbeddingsE2E, VectorsEqualLlamaCppsForEveryInputForm) {
  const json ref = reference();
  // An array of strings: one vector each, in order.
  const json j = post({{"model", "stories260K"}, {"input", ref["prompts"]}});
  EXPECT_EQ(j["object"], "list");
  EXPECT_EQ(j["model"], "stories260K");
  ASSERT_EQ(j["data"].size(), ref["prompts"].size());
  auto model = Model::load(stories_model(), {});
  int tokens = 0;
  for (size_t i = 0; i < j["data"].size(); ++i) {
    EXPECT_EQ(j["data"][i]["object"], "embedding");
    EXPECT_EQ(j["data"][i]["index"], i);
    EXPECT_LT(worst_difference(j["data"][i]["embedding"], ref["embeddings"][i]), 1e-3) << i;
    tokens += static_cast<int>(model->tokenizer().encode(ref["prompts"][i].get<std::string>(), true, false).size());
  }
  EXPECT_EQ(j["usage"]["prompt_tokens"], tokens);
  EXPECT_EQ(j["usage"]["total_tokens"], tokens);

  // One string; the same text as token ids; as base64 (little-endian float32).
  const json one = post({{"model", "stories260K"}, {"input", ref["prompts"][0]}});
  ASSERT_EQ(one["data"].size(), 1u);
  EXPECT_EQ(one["data"][0]["embedding"], j["data"][0]["embedding"]);
  const std::vector<Token> ids = model->tokenizer().encode(ref["prompts"][0].get<std::string>(), true, false);
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", ids}})["data"][0]["embedding"], j["data"][0]["embedding"]);
  const json nested = post({{"model", "stories260K"}, {"input", {ids, ids}}});
  ASSERT_EQ(nested["data"].size(), 2u);
  EXPECT_EQ(nested["data"][1]["embedding"], j["data"][0]["embedding"]);
  const json b64 = post({{"model", "stories260K"}, {"input", ref["prompts"][0]}, {"encoding_format", "base64"}});
  const auto bytes = crypto::base64_decode(b64["data"][0]["embedding"].get<std::string>());
  ASSERT_TRUE(bytes.has_value());
  ASSERT_EQ(bytes->size(), 4 * j["data"][0]["embedding"].size());
  for (size_t i = 0; i < bytes->size() / 4; ++i) {
    float f;
    std::memcpy(&f, bytes->data() + 4 * i, 4);  // the test machine is little-endian, as the format
    EXPECT_EQ(static_cast<double>(f), j["data"][0]["embedding"][i].get<double>()) << i;
  }
  // dimensions equal to the width is accepted.
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", "Lily"}, {"dimensions", model->info().n_embd}})["data"].size(), 1u);
}

TEST_F(EmbeddingsE2E, BadInputsAreClear400sThatEchoNothing) {
  const std::string secret = "SECRET-EMBED-7731";
  struct Bad {
    json body;
    const char* param;
  };
  const std::vector<Bad> cases = {
      {{{"model", "stories260K"}}, "input"},
      {{{"model", "stories260K"}, {"input", ""}}, "input"},
      {{{"model", "stories260K"}, {"input", json::array()}}, "input"},
      {{{"model", "stories260K"}, {"input", {secret, 3}}}, "input"},
      {{{"model", "stories260K"}, {"input", {1, -2}}}, "input"},
      {{{"model", "stories260K"}, {"input", {json::array()}}}, "input"},
      {{{"model", "stories260K"}, {"input", {1, 2, 100000}}}, "input"},  // beyond the vocabulary
      {{{"model", "stories260K"}, {"input", secret}, {"dimensions", 7}}, "dimensions"},
      {{{"model", "stories260K"}, {"input", secret}, {"encoding_format", secret}}, "encoding_format"},
      {{{"input", secret}}, "model"},
  };
  for (const Bad& b : cases) {
    const HttpResult r = http("POST", server_->url("/v1/embeddings"), b.body.dump());
    EXPECT_EQ(r.status, 400) << b.body.dump() << r.body;
    EXPECT_EQ(r.body.find(secret), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("100000"), std::string::npos) << r.body;
    const json e = json::parse(r.body, nullptr, false);
    EXPECT_EQ(e["error"]["param"], b.param) << r.body;
  }
  // An unknown field is refused without naming it; an unknown model is a 404.
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", "x"}, {secret, 1}}, 400)["error"]["code"], "unsupported_field");
  EXPECT_EQ(post({{"model", "nope"}, {"input", "x"}}, 404)["error"]["code"], "model_not_found");
  // An input as long as the context (2048 tokens) fits; a longer one is refused, never truncated.
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", std::vector<int>(2048, 5)}})["usage"]["prompt_tokens"], 2048);
  std::vector<int> many(2049, 5);
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", many}}, 400)["error"]["code"], "context_length_exceeded");
  // Still serving.
  EXPECT_EQ(post({{"model", "stories260K"}, {"input", "Lily"}})["data"].size(), 1u);
}

}  // namespace embeddings_e2e
}  // namespace a3s::power::testing

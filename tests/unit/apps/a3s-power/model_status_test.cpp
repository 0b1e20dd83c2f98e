// `ps` data: /health and /v1/models parsing, the table and the JSON view.
#include "a3s-power/model_status.h"

#include <gtest/gtest.h>

#include "http_client/server_error.h"

namespace a3s::power::client {
namespace {

const char* kHealth = R"({
  "status": "ok",
  "models": [
    {"name": "stories260K", "source": "/m/stories260K.gguf", "loaded": true, "n_ctx": 2048,
     "n_ctx_train": 2048, "architecture": "llama", "file_type": "F32", "size_bytes": 1185376,
     "n_params": 292160, "chat_template": "plain", "kv_cache": {"blocks_total": 64, "blocks_in_use": 3}},
    {"name": "qwen", "source": "store", "loaded": false, "n_ctx": null, "architecture": "qwen2",
     "file_type": "Q4_K", "size_bytes": 4683000000},
    {"name": "", "loaded": true},
    "garbage"
  ]
})";

TEST(ModelStatus, FromHealth) {
  auto models = models_from_health(nlohmann::json::parse(kHealth));
  ASSERT_EQ(models.size(), 2u) << "entries without a name are skipped";
  EXPECT_EQ(models[0].name, "stories260K");
  EXPECT_TRUE(models[0].loaded);
  EXPECT_EQ(models[0].n_ctx, 2048);
  EXPECT_EQ(models[0].size_bytes, 1185376u);
  EXPECT_FALSE(models[1].loaded);
  EXPECT_FALSE(models[1].n_ctx.has_value());
  EXPECT_EQ(models[1].architecture, "qwen2");
}

TEST(ModelStatus, FromList) {
  auto models = models_from_list(nlohmann::json::parse(
      R"({"object":"list","data":[{"id":"a","object":"model","loaded":true},{"id":"b"},{"object":"model"}]})"));
  ASSERT_EQ(models.size(), 2u);
  EXPECT_TRUE(models[0].loaded);
  EXPECT_FALSE(models[1].loaded);
  EXPECT_TRUE(models[1].architecture.empty());
}

TEST(ModelStatus, WrongShapesAreServerErrors) {
  EXPECT_THROW(models_from_health(nlohmann::json::array()), ServerError);
  EXPECT_THROW(models_from_health(nlohmann::json{{"models", 3}}), ServerError);
  EXPECT_THROW(models_from_list(nlohmann::json{{"data", "x"}}), ServerError);
  EXPECT_THROW(models_from_list(nlohmann::json("x")), ServerError);
}

TEST(ModelStatus, Table) {
  auto models = models_from_health(nlohmann::json::parse(kHealth));
  const std::string t = format_model_table(models);
  EXPECT_EQ(t,
            "NAME          ARCH    TYPE   SIZE     CONTEXT   KV BLOCKS   STATE\n"
            "stories260K   llama   F32    1.2 MB   2048      3/64        loaded\n"
            "qwen          qwen2   Q4_K   4.7 GB   -         -           not loaded\n");
  EXPECT_EQ(format_model_table({}), "NAME   ARCH   TYPE   SIZE   CONTEXT   KV BLOCKS   STATE\n");
}

TEST(ModelStatus, TableShowsTrainedContextWhenDifferentAndHidesControlCharacters) {
  ModelStatus m;
  m.name = "evil\x1b[31mname";
  m.loaded = true;
  m.n_ctx = 512;
  m.n_ctx_train = 2048;
  const std::string t = format_model_table({m});
  EXPECT_NE(t.find("evil?[31mname"), std::string::npos) << t;
  EXPECT_NE(t.find("512 (2048 trained)"), std::string::npos) << t;
  m.kv_blocks_total = 0;  // no limit; blocks in use hidden (suppress_token_metrics)
  EXPECT_NE(format_model_table({m}).find("-/∞"), std::string::npos);
  EXPECT_EQ(t.find('\x1b'), std::string::npos);
}

TEST(ModelStatus, Json) {
  auto j = model_status_json(models_from_health(nlohmann::json::parse(kHealth)));
  ASSERT_EQ(j["models"].size(), 2u);
  EXPECT_EQ(j["models"][0]["name"], "stories260K");
  EXPECT_EQ(j["models"][0]["state"], "loaded");
  EXPECT_EQ(j["models"][0]["size_bytes"], 1185376);
  EXPECT_EQ(j["models"][0]["kv_blocks_in_use"], 3);
  EXPECT_EQ(j["models"][0]["kv_blocks_total"], 64);
  EXPECT_TRUE(j["models"][1]["kv_blocks_total"].is_null());
  EXPECT_EQ(j["models"][1]["state"], "not loaded");
  EXPECT_TRUE(j["models"][1]["n_ctx"].is_null());
  EXPECT_EQ(j["models"][0].begin().key(), "name") << "keys keep their documented order";
  EXPECT_EQ(std::next(j["models"][0].begin()).key(), "state");
}

TEST(HumanSize, DecimalUnits) {
  EXPECT_EQ(human_size(0), "0 B");
  EXPECT_EQ(human_size(999), "999 B");
  EXPECT_EQ(human_size(1000), "1.0 KB");
  EXPECT_EQ(human_size(1185376), "1.2 MB");
  EXPECT_EQ(human_size(45'000'000), "45 MB");
  EXPECT_EQ(human_size(4'683'000'000ull), "4.7 GB");
}

}  // namespace
}  // namespace a3s::power::client

// `a3s-power serve` with an encrypted model: the key from --model-key-file or model_key_source,
// decryption in file, memory and stream modes, the same greedy completion as the plaintext model, the
// startup errors (wrong key, tee_mode, bad mode combinations) as exit 2, and tampering on disk while a
// stream-decrypted model serves (500 to the client, logged for the operator), and a plaintext
// streamed model cut short while it serves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/http_client.h"
#include "support/server_process.h"
#include "cli_run.h"

namespace a3s::power::enc_test {
namespace {

using testing::ServerProcess;

const std::string kStories = std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";

std::string greedy_text(const ServerProcess& s, const std::string& model) {
  const nlohmann::json body = {
      {"model", model}, {"prompt", "Once upon a time"}, {"max_tokens", 8}, {"temperature", 0}};
  testing::HttpOptions o;
  o.headers = {"Content-Type: application/json"};
  const auto r = testing::http("POST", s.url("/v1/completions"), body.dump(), o);
  EXPECT_EQ(r.status, 200) << r.body;
  return nlohmann::json::parse(r.body).at("choices").at(0).at("text").get<std::string>();
}

struct Keys {
  Dir dir;
  std::string key = dir.file("m.key"), enc = dir.file("stories.enc");
  Keys() {
    EXPECT_EQ(run({"keygen", "--aes256", "--out", key}).status, 0);
    EXPECT_EQ(run({"encrypt", "--key-file", key, kStories, enc}).status, 0);
  }
};

TEST(EncryptedServe, ServesTheSameCompletionsAsThePlaintextModel) {
  Keys k;
  std::string expected;
  {
    ServerProcess plain({"--model", "stories=" + kStories, "--threads", "1"});
    ASSERT_TRUE(plain.ready()) << plain.log();
    expected = greedy_text(plain, "stories");
  }
  EXPECT_EQ(expected, ", there was a little girl");
  for (const std::string mode : {"file", "memory", "stream"}) {
    ServerProcess s(
        {"--model", "stories=" + k.enc, "--model-key-file", k.key, "--decrypt", mode, "--threads", "1"});
    ASSERT_TRUE(s.ready()) << s.log();
    EXPECT_EQ(greedy_text(s, "stories"), expected) << mode;
    EXPECT_EQ(s.stop(), 0);
  }
  // The key and mode from the configuration file.
  const std::string cfg = k.dir.file("c.hcl");
  std::ofstream(cfg) << "model_key_source = { file = \"" << k.key << "\" }\nin_memory_decrypt = true\n";
  ServerProcess c({"--config", cfg, "--model", "stories=" + k.enc, "--threads", "1"});
  ASSERT_TRUE(c.ready()) << c.log();
  EXPECT_EQ(greedy_text(c, "stories"), expected);
  // And from an environment variable named in the configuration.
  std::ofstream(cfg) << "model_key_source = { env = \"MY_MODEL_KEY\" }\nmodel_decrypt = \"file\"\n";
  ServerProcess e({"--config", cfg, "--model", "stories=" + k.enc, "--threads", "1"},
                  {{"MY_MODEL_KEY", slurp(k.key).substr(0, 64)}});
  ASSERT_TRUE(e.ready()) << e.log();
  EXPECT_EQ(greedy_text(e, "stories"), expected);
}

TEST(EncryptedServe, TamperingWhileServingIsRefusedAndLogged) {
  Keys k;
  ServerProcess s({"--model", "stories=" + k.enc, "--model-key-file", k.key, "--decrypt", "stream", "--threads", "1"});
  ASSERT_TRUE(s.ready()) << s.log();
  EXPECT_EQ(greedy_text(s, "stories"), ", there was a little girl");
  // Every chunk is authenticated again when layer streaming reads it: flip bytes in the middle of
  // the file (tensor data) in place.
  {
    std::fstream f(k.enc, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(k.enc) / 2));
    f.write("\x55\xaa\x55\xaa", 4);
  }
  const nlohmann::json body = {{"model", "stories"}, {"prompt", "Once upon a time"}, {"max_tokens", 8}};
  testing::HttpOptions o;
  o.headers = {"Content-Type: application/json"};
  const auto r = testing::http("POST", s.url("/v1/completions"), body.dump(), o);
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "decryption_failed") << r.body;
  EXPECT_EQ(r.body.find("chunk"), std::string::npos) << "details stay in the log: " << r.body;
  EXPECT_EQ(s.stop(), 0);
  EXPECT_NE(s.log().find("request failed: decryption_failed"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("failed authentication"), std::string::npos) << s.log();
}

TEST(EncryptedServe, APlaintextStreamedModelCutWhileServingIsAServerErrorLoggedForTheOperator) {
  // The same on a plaintext model streamed from its file: a read past the end of a truncated file
  // fails the request with 500 (not the client's fault), without the file's path, and the operator
  // finds the detail in the log; the server keeps serving.
  Dir dir;
  const std::string copy = dir.file("stories.gguf");
  std::filesystem::copy_file(kStories, copy);
  ServerProcess s({"--model", "stories=" + copy, "--weights", "stream", "--threads", "1"});
  ASSERT_TRUE(s.ready()) << s.log();
  EXPECT_EQ(greedy_text(s, "stories"), ", there was a little girl");
  std::filesystem::resize_file(copy, std::filesystem::file_size(copy) / 2);
  const nlohmann::json body = {{"model", "stories"}, {"prompt", "Once upon a time"}, {"max_tokens", 8}};
  testing::HttpOptions o;
  o.headers = {"Content-Type: application/json"};
  const auto r = testing::http("POST", s.url("/v1/completions"), body.dump(), o);
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "internal_error") << r.body;
  EXPECT_EQ(r.body.find(dir.path()), std::string::npos) << "no server path reaches the client: " << r.body;
  EXPECT_EQ(testing::http("GET", s.url("/health")).status, 200);
  EXPECT_EQ(s.stop(), 0);
  EXPECT_NE(s.log().find("the model's weights could not be read"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("unexpected end of"), std::string::npos) << s.log();
}

TEST(EncryptedServe, StartupErrorsExitTwo) {
  Keys k;
  Dir other;
  ASSERT_EQ(run({"keygen", "--aes256", "--out", other.file("k")}).status, 0);
  {
    ServerProcess s({"--model", "stories=" + k.enc, "--model-key-file", other.file("k")});
    EXPECT_FALSE(s.ready());
    EXPECT_EQ(s.stop(), 2);
    EXPECT_NE(s.log().find("does not match"), std::string::npos) << s.log();
  }
  {
    ServerProcess s({"--model", "stories=" + k.enc});  // no key anywhere
    EXPECT_FALSE(s.ready());
    EXPECT_EQ(s.stop(), 2);
    EXPECT_NE(s.log().find("is encrypted"), std::string::npos) << s.log();
  }
  {
    ServerProcess s(
        {"--model", "stories=" + k.enc, "--model-key-file", k.key, "--decrypt", "stream", "--weights", "resident"});
    EXPECT_FALSE(s.ready());
    EXPECT_EQ(s.stop(), 2);
    // The server names the setting by its configuration key, with the flag that sets it.
    EXPECT_NE(s.log().find("needs weights = \"stream\" (--weights stream) or auto"), std::string::npos) << s.log();
  }
  {
    // Strict TEE mode on a machine without attestation hardware (an empty device root).
    ServerProcess s({"--model", "stories=" + kStories},
                    {{"A3S_POWER_TEE_MODE", "true"}, {"A3S_POWER_TEE_DEVICE_ROOT", "/nonexistent-a3s-tee-root"}});
    EXPECT_FALSE(s.ready());
    EXPECT_EQ(s.stop(), 2);
    EXPECT_NE(s.log().find("no TEE evidence provider found"), std::string::npos) << s.log();
  }
}

}  // namespace
}  // namespace a3s::power::enc_test

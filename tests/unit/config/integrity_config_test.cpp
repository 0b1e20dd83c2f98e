// Model integrity keys: pins as the `model_hashes` map and as `model_hash` blocks (together), and
// the Ed25519 `model_signing_key`; malformed digests, conflicting pins and bad keys are config
// errors with their positions.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

const std::string kHexA(64, 'a');
const std::string kHexB = std::string(62, '0') + "1F";

std::array<uint8_t, 32> filled(uint8_t b) {
  std::array<uint8_t, 32> a{};
  a.fill(b);
  return a;
}

TEST(ConfigIntegrity, PinsFromTheMapAndBlocksTogether) {
  const Config c = apply_text("model_hashes = {\n  llama = \"sha256:" + kHexA + "\"\n  \"qwen:0.5b\" = \"sha256:" +
                              kHexB + "\"\n}\nmodel_hash \"story\" {\n  digest = \"sha256:" + std::string(64, 'F') +
                              "\"\n}\n");
  ASSERT_EQ(c.model_hashes.size(), 3u);
  EXPECT_EQ(c.model_hashes.at("llama"), filled(0xaa));
  EXPECT_EQ(c.model_hashes.at("story"), filled(0xff));
  std::array<uint8_t, 32> b{};
  b[31] = 0x1f;
  EXPECT_EQ(c.model_hashes.at("qwen:0.5b"), b);
  EXPECT_FALSE(c.model_signing_key.has_value());
  // The same pin twice (map and block) is not a conflict.
  const Config same = apply_text("model_hashes = { llama = \"sha256:" + kHexA + "\" }\nmodel_hash \"llama\" {\n"
                                 "  digest = \"sha256:" + kHexA + "\"\n}\n");
  EXPECT_EQ(same.model_hashes.size(), 1u);
}

TEST(ConfigIntegrity, PinsAppearInTheEffectiveSettings) {
  Config c = apply_text("model_hashes = { llama = \"sha256:" + kHexA + "\" }\nmodel_signing_key = \"" +
                        std::string(64, 'B') + "\"\n");
  const nlohmann::json j = c.effective_json();
  EXPECT_EQ(j.at("model_hashes").at("llama"), "sha256:" + kHexA);
  EXPECT_EQ(j.at("model_signing_key"), std::string(64, 'b'));
  EXPECT_TRUE(Config{}.effective_json().at("model_signing_key").is_null());
}

TEST(ConfigIntegrity, MalformedDigestsAreRefusedAtTheValue) {
  EXPECT_EQ(apply_error("model_hashes = { llama = \"sha256:00\" }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be \"sha256:\" followed by 64 hex digits");
  EXPECT_EQ(apply_error("model_hashes = { llama = \"" + kHexA + "\" }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be \"sha256:\" followed by 64 hex digits");
  EXPECT_EQ(apply_error("model_hashes = { llama = \"SHA256:" + kHexA + "\" }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be \"sha256:\" followed by 64 hex digits");
  EXPECT_EQ(apply_error("model_hashes = { llama = \"sha256:" + kHexA + "0\" }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be \"sha256:\" followed by 64 hex digits");
  EXPECT_EQ(apply_error("model_hashes = { llama = \"sha256:" + std::string(63, 'a') + "g\" }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be \"sha256:\" followed by 64 hex digits");
  EXPECT_EQ(apply_error("model_hashes = { llama = 1 }\n"),
            "c.hcl:1:26: 'model_hashes.llama' must be a string, found integer");
  EXPECT_EQ(apply_error("\nmodel_hash \"llama\" {\n  digest = \"sha256:abc\"\n}\n"),
            "c.hcl:3:12: 'digest' must be \"sha256:\" followed by 64 hex digits");
}

TEST(ConfigIntegrity, ModelHashBlockShape) {
  EXPECT_EQ(apply_error("\nmodel_hash \"llama\" {\n}\n"), "c.hcl:2:1: block 'model_hash' needs 'digest'");
  EXPECT_EQ(apply_error("model_hash {\n  digest = \"sha256:" + kHexA + "\"\n}\n"),
            "c.hcl:1:1: block 'model_hash' needs exactly one label (the served model name)");
  EXPECT_EQ(apply_error("model_hash \"x\" {\n  sha256 = \"sha256:" + kHexA + "\"\n}\n"),
            "c.hcl:2:3: unknown key 'sha256' in block 'model_hash'");
  EXPECT_EQ(apply_error("model_hash \"\" {\n  digest = \"sha256:" + kHexA + "\"\n}\n"),
            "c.hcl:1:12: a pinned model name must not be empty");
}

TEST(ConfigIntegrity, ConflictingPinsAreRefused) {
  EXPECT_EQ(apply_error("model_hashes = { llama = \"sha256:" + kHexA + "\" }\nmodel_hash \"llama\" {\n"
                        "  digest = \"sha256:" + kHexB + "\"\n}\n"),
            "c.hcl:2:12: model 'llama' is pinned twice with different digests");
  EXPECT_EQ(apply_error("model_hash \"x\" {\n  digest = \"sha256:" + kHexA + "\"\n}\nmodel_hash \"x\" {\n"
                        "  digest = \"sha256:" + kHexB + "\"\n}\n"),
            "c.hcl:4:12: model 'x' is pinned twice with different digests");
}

TEST(ConfigIntegrity, SigningKey) {
  const Config c = apply_text("model_signing_key = \"" + std::string(62, '0') + "0A\"\n");
  ASSERT_TRUE(c.model_signing_key.has_value());
  EXPECT_EQ((*c.model_signing_key)[31], 0x0a);
  EXPECT_EQ((*c.model_signing_key)[0], 0x00);
  for (const std::string& bad : {std::string("/k.pem"), std::string(63, 'a'), std::string(65, 'a'),
                                std::string(62, 'a') + "+1", std::string(62, 'a') + "0x", std::string()}) {
    EXPECT_EQ(apply_error("\nmodel_signing_key = \"" + bad + "\"\n"),
              "c.hcl:2:21: 'model_signing_key' must be an Ed25519 public key: 64 hex digits")
        << bad;
  }
}

TEST(ConfigIntegrity, SigningKeyFromTheEnvironment) {
  Config c;
  apply_env(c, {{"A3S_POWER_MODEL_SIGNING_KEY", std::string(64, 'c')}});
  ASSERT_TRUE(c.model_signing_key.has_value());
  EXPECT_EQ(*c.model_signing_key, filled(0xcc));
  EXPECT_EQ(config_error_of([] {
              Config d;
              apply_env(d, {{"A3S_POWER_MODEL_SIGNING_KEY", "zz"}});
            }),
            "A3S_POWER_MODEL_SIGNING_KEY: 'model_signing_key' must be an Ed25519 public key: 64 hex digits");
}

}  // namespace
}  // namespace a3s::power::config::test

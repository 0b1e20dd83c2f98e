#include "store/manifest_json.h"

#include <gtest/gtest.h>

#include "support/store_test_support.h"
#include "a3s/power/error.h"
#include "base/utc_time.h"

namespace a3s::power::store {
namespace {

using testing::looks_like_rfc3339_utc;

Manifest sample() {
  Manifest m;
  m.name = "org/repo:Q4";
  m.digest = "sha256:" + std::string(64, 'a');
  m.size = 1185376;
  m.format = "gguf";
  m.architecture = "llama";
  m.quantization = "Q4_K";
  m.source = "hf://org/repo/m.gguf";
  m.created = "2026-11-29T10:08:24Z";
  return m;
}

TEST(ManifestJson, RoundTripsEveryField) {
  const Manifest m = sample();
  const nlohmann::json j = manifest_to_json(m);
  EXPECT_EQ(j.at("digest"), m.digest);
  EXPECT_EQ(j.at("size"), 1185376u);
  const Manifest back = manifest_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.name, m.name);
  EXPECT_EQ(back.digest, m.digest);
  EXPECT_EQ(back.size, m.size);
  EXPECT_EQ(back.format, m.format);
  EXPECT_EQ(back.architecture, m.architecture);
  EXPECT_EQ(back.quantization, m.quantization);
  EXPECT_EQ(back.source, m.source);
  EXPECT_EQ(back.created, m.created);
}

TEST(ManifestJson, UnknownFieldsAreIgnored) {
  nlohmann::json j = manifest_to_json(sample());
  j["future"] = 1;
  EXPECT_EQ(manifest_from_json(j).name, "org/repo:Q4");
}

TEST(ManifestJson, MissingOrMistypedFieldsAreInvalidModel) {
  for (const char* key :
       {"name", "digest", "size", "format", "architecture", "quantization", "source", "created"}) {
    nlohmann::json j = manifest_to_json(sample());
    j.erase(key);
    try {
      manifest_from_json(j);
      FAIL() << key;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), codes::kInvalidModel);
    }
  }
  nlohmann::json j = manifest_to_json(sample());
  j["size"] = -1;
  EXPECT_THROW(manifest_from_json(j), Error);
  j = manifest_to_json(sample());
  j["digest"] = "sha256:" + std::string(64, 'A');  // digests are lowercase
  EXPECT_THROW(manifest_from_json(j), Error);
  j = manifest_to_json(sample());
  j["name"] = "";
  EXPECT_THROW(manifest_from_json(j), Error);
  EXPECT_THROW(manifest_from_json(nlohmann::json::array()), Error);
}

TEST(ManifestJson, DigestValidation) {
  EXPECT_TRUE(is_valid_digest("sha256:" + std::string(64, '0')));
  EXPECT_FALSE(is_valid_digest("sha256:" + std::string(63, '0')));
  EXPECT_FALSE(is_valid_digest("sha512:" + std::string(64, '0')));
  EXPECT_FALSE(is_valid_digest(std::string(64, '0')));
}

TEST(ManifestJson, CreatedIsRfc3339Utc) {
  EXPECT_TRUE(looks_like_rfc3339_utc(a3s::power::rfc3339_utc_now()));
  EXPECT_FALSE(looks_like_rfc3339_utc("2026-11-29 10:08:24Z"));
}

}  // namespace
}  // namespace a3s::power::store

// `a3s-power serve` with model integrity settings: a pin mismatch or a bad signature is a startup
// error (exit 2, the model and digests named), a matching pin and a verified signature serve and
// show in /health, and a pinned plaintext model with streamed weights is refused.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/http_client.h"
#include "support/server_process.h"
#include "../encrypted_cli/cli_run.h"
#include "base/hex.h"
#include "crypto/sha256.h"

namespace a3s::power::enc_test {
namespace {

namespace fs = std::filesystem;
using testing::ServerProcess;

const std::string kStories = std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";

std::string sha256_hex(const std::string& path) {
  const std::string bytes = slurp(path);
  std::array<uint8_t, 32> md{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr);
  return to_hex(md);
}

struct Fixture {
  Dir dir;
  std::string model = dir.file("story.gguf"), cfg = dir.file("c.hcl"), key = dir.file("sign.key");
  std::string pub;
  Fixture() {
    fs::copy_file(kStories, model);
    const CliRun k = run({"keygen", "--type", "ed25519", "--out", key});
    EXPECT_EQ(k.status, 0) << k.err;
    pub = k.out.substr(0, 64);
  }
  void config(const std::string& text) const { std::ofstream(cfg, std::ios::trunc) << text; }
};

TEST(IntegrityServe, PinMismatchIsAStartupError) {
  Fixture s;
  const std::string wrong(64, '0');
  s.config("model_hashes = { story = \"sha256:" + wrong + "\" }\n");
  ServerProcess srv({"--config", s.cfg, "--model", "story=" + s.model, "--threads", "1"});
  EXPECT_FALSE(srv.ready());
  EXPECT_EQ(srv.stop(), 2);
  EXPECT_NE(srv.log().find("model 'story': SHA-256 " + sha256_hex(s.model) + " does not match its pin sha256:" + wrong),
            std::string::npos)
      << srv.log();
}

TEST(IntegrityServe, MissingOrWrongSignatureIsAStartupError) {
  Fixture s;
  s.config("model_signing_key = \"" + s.pub + "\"\n");
  {
    ServerProcess srv({"--config", s.cfg, "--model", "story=" + s.model, "--threads", "1"});
    EXPECT_FALSE(srv.ready());
    EXPECT_EQ(srv.stop(), 2);
    EXPECT_NE(srv.log().find("is missing"), std::string::npos) << srv.log();
  }
  // Signed with another key.
  Dir other;
  const std::string other_key = other.file("k");
  ASSERT_EQ(run({"keygen", "--type", "ed25519", "--out", other_key}).status, 0);
  ASSERT_EQ(run({"sign", "--key", other_key, "--model", s.model}).status, 0);
  ServerProcess srv({"--config", s.cfg, "--model", "story=" + s.model, "--threads", "1"});
  EXPECT_FALSE(srv.ready());
  EXPECT_EQ(srv.stop(), 2);
  EXPECT_NE(srv.log().find("does not verify"), std::string::npos) << srv.log();
}

TEST(IntegrityServe, PinnedPlaintextWithStreamedWeightsIsRefused) {
  Fixture s;
  s.config("model_hash \"story\" {\n  digest = \"sha256:" + sha256_hex(s.model) + "\"\n}\n");
  ServerProcess srv({"--config", s.cfg, "--model", "story=" + s.model, "--threads", "1", "--weights", "stream"});
  EXPECT_FALSE(srv.ready());
  EXPECT_EQ(srv.stop(), 2);
  EXPECT_NE(srv.log().find("model 'story': integrity checks need resident weights or encrypted streaming "
                           "(model_decrypt = \"stream\" (--decrypt stream))"),
            std::string::npos)
      << srv.log();
}

TEST(IntegrityServe, VerifiedModelServesAndShowsInHealth) {
  Fixture s;
  ASSERT_EQ(run({"sign", "--key", s.key, "--model", s.model}).status, 0);
  const std::string digest = sha256_hex(s.model);
  s.config("model_hashes = { story = \"sha256:" + digest + "\" }\nmodel_signing_key = \"" + s.pub + "\"\n");
  ServerProcess srv({"--config", s.cfg, "--model", "story=" + s.model, "--threads", "1"});
  ASSERT_TRUE(srv.ready()) << srv.log();
  const auto h = testing::http("GET", srv.url("/health"));
  ASSERT_EQ(h.status, 200) << h.body;
  const nlohmann::json j = nlohmann::json::parse(h.body);
  const nlohmann::json& m = j.at("models").at(0);
  EXPECT_EQ(m.at("name"), "story");
  EXPECT_EQ(m.at("sha256"), digest);
  EXPECT_EQ(m.at("signature"), "verified");
  EXPECT_EQ(j.at("settings").at("model_hashes").at("story"), "sha256:" + digest);
  EXPECT_EQ(srv.stop(), 0);
}

}  // namespace
}  // namespace a3s::power::enc_test

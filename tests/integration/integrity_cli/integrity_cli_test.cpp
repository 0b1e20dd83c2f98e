// Model integrity tools through the real a3s-power binary: `keygen --type ed25519`, `sign`, `hash`
// (plaintext and encrypted), their bad input (exit 2, one line on stderr, never key material), and
// a sign → verify round trip checked independently with OpenSSL.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <filesystem>

#include "../encrypted_cli/cli_run.h"
#include "base/hex.h"
#include "crypto/ed25519.h"
#include "model/integrity/model_signature.h"
#include "crypto/sha256.h"

namespace a3s::power::enc_test {
namespace {

namespace fs = std::filesystem;

const std::string kStories = std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";

std::array<uint8_t, 32> openssl_sha256(const std::string& path) {
  const std::string bytes = slurp(path);
  std::array<uint8_t, 32> md{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr);
  return md;
}

void expect_one_line_error(const CliRun& r, const std::string& contains) {
  EXPECT_EQ(r.status, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be one line: " << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
}

bool is_lower_hex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(c) && !std::isupper(c); });
}

// keygen --type ed25519 into dir/name; returns {private key path, public key hex}.
std::pair<std::string, std::string> signing_keygen(const Dir& dir, const std::string& name = "sign.key") {
  const std::string path = dir.file(name);
  const CliRun r = run({"keygen", "--type", "ed25519", "--out", path});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.size(), 65u) << r.out;
  return {path, r.out.substr(0, 64)};
}

TEST(SigningKeygen, WritesThePrivateSeedAndPrintsOnlyThePublicKey) {
  Dir dir;
  const auto [key, pub] = signing_keygen(dir);
  struct stat st {};
  ASSERT_EQ(::stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const std::string seed_hex = slurp(key);
  ASSERT_EQ(seed_hex.size(), 65u);
  EXPECT_EQ(seed_hex.back(), '\n');
  EXPECT_TRUE(is_lower_hex(seed_hex.substr(0, 64)));
  EXPECT_TRUE(is_lower_hex(pub));
  // stdout is the public key of the written seed, and never the seed.
  std::array<uint8_t, 32> seed{};
  ASSERT_TRUE(decode_hex(seed_hex.substr(0, 64), seed));
  EXPECT_EQ(to_hex(crypto::ed25519_public_key(seed)), pub);
  EXPECT_NE(pub, seed_hex.substr(0, 64));
  // Never overwritten; a second key differs.
  expect_one_line_error(run({"keygen", "--type", "ed25519", "--out", key}), "refusing to overwrite");
  EXPECT_EQ(slurp(key), seed_hex);
  EXPECT_NE(signing_keygen(dir, "other.key").second, pub);
  // The AES model key stays as it was: the type must be named.
  expect_one_line_error(run({"keygen", "--out", dir.file("x")}), "--aes256");
  expect_one_line_error(run({"keygen", "--aes256", "--type", "ed25519", "--out", dir.file("x")}), "contradict");
  EXPECT_FALSE(fs::exists(dir.file("x")));
  const CliRun aes = run({"keygen", "--type", "aes256", "--out", dir.file("aes")});
  EXPECT_EQ(aes.status, 0) << aes.err;
  EXPECT_NE(aes.out.find("AES-256 model key"), std::string::npos) << aes.out;
}

TEST(Sign, RoundTripVerifiesIndependently) {
  Dir dir;
  const auto [key, pub_hex] = signing_keygen(dir);
  const std::string model = dir.file("story.gguf");
  fs::copy_file(kStories, model);
  const CliRun r = run({"sign", "--key", key, "--model", model});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, model + ".sig\n");
  EXPECT_EQ(r.err, "");
  const std::string seed_hex = slurp(key).substr(0, 64);
  EXPECT_EQ(r.out.find(seed_hex), std::string::npos);
  const std::string text = slurp(model + ".sig");
  ASSERT_EQ(text.size(), 129u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_TRUE(is_lower_hex(text.substr(0, 128)));
  const auto sig = crypto::parse_signature_file_text(text);
  ASSERT_TRUE(sig.has_value());
  const auto pub = crypto::parse_ed25519_public_key(pub_hex);
  ASSERT_TRUE(pub.has_value());
  EXPECT_TRUE(crypto::verify_model_digest(*pub, openssl_sha256(model), *sig));
  // Ed25519 is deterministic: signing again gives the same file; --out writes elsewhere.
  const CliRun again = run({"sign", "--key", key, "--model", model, "--out", dir.file("other.sig")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(dir.file("other.sig")), text);
}

TEST(Sign, RefusesEncryptedModelsAndBadInput) {
  Dir dir;
  const auto [key, pub] = signing_keygen(dir);
  ASSERT_EQ(run({"keygen", "--aes256", "--out", dir.file("m.key")}).status, 0);
  ASSERT_EQ(run({"encrypt", "--key-file", dir.file("m.key"), kStories, dir.file("x.enc")}).status, 0);
  expect_one_line_error(run({"sign", "--key", key, "--model", dir.file("x.enc")}),
                        "sign the plaintext GGUF before encrypting");
  EXPECT_FALSE(fs::exists(dir.file("x.enc.sig")));
  // The encrypted model's signature is the plaintext's, written next to it.
  const CliRun plain = run({"sign", "--key", key, "--model", kStories, "--out", dir.file("x.enc.sig")});
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_TRUE(fs::exists(dir.file("x.enc.sig")));

  std::ofstream(dir.file("not.gguf")) << "hello world";
  expect_one_line_error(run({"sign", "--key", key, "--model", dir.file("not.gguf")}), "is not a GGUF file");
  expect_one_line_error(run({"sign", "--key", dir.file("missing.key"), "--model", kStories, "--out",
                             dir.file("s.sig")}),
                        "cannot open");
  std::ofstream(dir.file("bad.key")) << "zz" << std::string(62, '1') << "\n";
  const CliRun bad = run({"sign", "--key", dir.file("bad.key"), "--model", kStories, "--out", dir.file("s.sig")});
  expect_one_line_error(bad, "64 hex digits");
  EXPECT_EQ(bad.err.find(std::string(62, '1')), std::string::npos) << "key text echoed: " << bad.err;
  EXPECT_FALSE(fs::exists(dir.file("s.sig")));
  expect_one_line_error(run({"sign", "--key", key, "--model", dir.file("absent.gguf")}), "absent.gguf");
}

TEST(Hash, PrintsThePinOfPlaintextAndEncryptedModels) {
  Dir dir;
  const std::string expected = "sha256:" + to_hex(openssl_sha256(kStories)) + "\n";
  const CliRun plain = run({"hash", kStories});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out, expected);

  const std::string key = dir.file("m.key"), enc = dir.file("x.enc");
  ASSERT_EQ(run({"keygen", "--aes256", "--out", key}).status, 0);
  ASSERT_EQ(run({"encrypt", "--key-file", key, kStories, enc}).status, 0);
  const CliRun with_file = run({"hash", enc, "--model-key-file", key});
  ASSERT_EQ(with_file.status, 0) << with_file.err;
  EXPECT_EQ(with_file.out, expected);
  const CliRun with_env = run({"hash", enc}, {{"A3S_MODEL_KEY", slurp(key).substr(0, 64)}});
  ASSERT_EQ(with_env.status, 0) << with_env.err;
  EXPECT_EQ(with_env.out, expected);

  expect_one_line_error(run({"hash", enc}), "--model-key-file");
  ASSERT_EQ(run({"keygen", "--aes256", "--out", dir.file("other.key")}).status, 0);
  expect_one_line_error(run({"hash", enc, "--model-key-file", dir.file("other.key")}), "does not match");
  expect_one_line_error(run({"hash", kStories, "--model-key-file", key}), "is not encrypted");
  expect_one_line_error(run({"hash", dir.file("absent.gguf")}), "absent.gguf");
  // A tampered encrypted file has no digest to print.
  {
    std::fstream f(enc, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = static_cast<std::streamoff>(fs::file_size(enc) / 2);
    f.seekg(at);
    const char c = static_cast<char>(f.get());
    f.seekp(at);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  const CliRun tampered = run({"hash", enc, "--model-key-file", key});
  EXPECT_EQ(tampered.status, 2) << tampered.err;
  EXPECT_EQ(tampered.out, "");
}

}  // namespace
}  // namespace a3s::power::enc_test

// What a served model reports about its integrity (runtime::ModelDescription): the plaintext and
// encrypted digests and the signature status, and a pin mismatch refusing the load.
#include <gtest/gtest.h>

#include "model/encrypted/key_provider.h"
#include "integrity_test_util.h"
#include "runtime/engine_runtime.h"

namespace a3s::power::integrity_test {
namespace {

runtime::EngineRuntimeOptions runtime_options() {
  runtime::EngineRuntimeOptions o;
  o.n_threads = 1;
  o.n_ctx = 64;
  return o;
}

TEST(RuntimeIntegrity, DescriptionReportsDigestAndSignature) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const auto digest = openssl_sha256(read_bytes(path));

  const auto unmeasured = runtime::load_engine_runtime("story", path, runtime_options());
  EXPECT_EQ(unmeasured->description().sha256, "");
  EXPECT_EQ(unmeasured->description().encrypted_sha256, "");
  EXPECT_EQ(unmeasured->description().signature, "absent");

  runtime::EngineRuntimeOptions o = runtime_options();
  o.integrity.measure = true;
  const auto measured = runtime::load_engine_runtime("story", path, o);
  EXPECT_EQ(measured->description().sha256, hex(digest));
  EXPECT_EQ(measured->description().signature, "absent");

  const SigningKey key(9);
  key.sign_file(path, path + ".sig");
  o.integrity.signing_key = key.pub;
  o.integrity.pin = digest;
  const auto signed_rt = runtime::load_engine_runtime("story", path, o);
  EXPECT_EQ(signed_rt->description().sha256, hex(digest));
  EXPECT_EQ(signed_rt->description().signature, "verified");
  EXPECT_EQ(signed_rt->description().encrypted_sha256, "");
}

TEST(RuntimeIntegrity, PinMismatchNamesTheServedModel) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  runtime::EngineRuntimeOptions o = runtime_options();
  o.integrity.pin = crypto::Sha256Digest{};
  std::string code;
  const std::string msg = error_of([&] { runtime::load_engine_runtime("my-model", path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  const std::string expected = "model 'my-model': SHA-256 " + hex(openssl_sha256(read_bytes(path))) +
                               " does not match its pin sha256:" + std::string(64, '0');
  EXPECT_EQ(msg, expected);
}

TEST(RuntimeIntegrity, EncryptedModelReportsBothDigests) {
  TempDir dir;
  const std::string plain = copy_model(dir, "plain.gguf"), enc = dir.file("story.enc"), key = dir.file("k");
  write_bytes(key, std::vector<uint8_t>(crypto::test::kKeyHexA, crypto::test::kKeyHexA + 64));
  crypto::test::encrypt_to(plain, enc, crypto::test::key_a(), 1u << 16);
  runtime::EngineRuntimeOptions o = runtime_options();
  o.decrypt.key = crypto::file_key_provider(key);
  const auto rt = runtime::load_engine_runtime("story", enc, o);
  EXPECT_EQ(rt->description().sha256, hex(openssl_sha256(read_bytes(plain))));
  EXPECT_EQ(rt->description().encrypted_sha256, hex(openssl_sha256(read_bytes(enc))));
  EXPECT_EQ(rt->description().signature, "absent");
}

}  // namespace
}  // namespace a3s::power::integrity_test

// load_model with integrity options: the digest is measured on the served bytes, a pin or signature
// that does not match refuses the model (Error "integrity_error" naming the model and the digests),
// streamed plaintext weights are refused, and encrypted models use their authenticated digest.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/encrypted/key_provider.h"
#include "crypto/secure_memory.h"
#include "engine/load.h"
#include "integrity_test_util.h"

namespace a3s::power::integrity_test {
namespace {



LoadOptions with_pin(const std::optional<crypto::Sha256Digest>& pin) {
  LoadOptions o;
  o.model.n_threads = 1;
  o.integrity.pin = pin;
  o.integrity.model_name = "story";
  return o;
}

std::vector<float> logits_of(const std::shared_ptr<Model>& m) {
  Context ctx(m, ContextOptions{.n_ctx = 16});
  const std::vector<Token> tokens = {1, 403, 407};
  const auto l = ctx.eval(tokens, /*all_logits=*/true);
  return {l.begin(), l.end()};
}

TEST(IntegrityLoad, MatchingPinLoadsFromTheMeasuredImage) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const auto digest = openssl_sha256(read_bytes(path));
  const auto m = load_model(path, with_pin(digest));
  ASSERT_TRUE(m->info().integrity.has_value());
  EXPECT_EQ(m->info().integrity->sha256, hex(digest));
  EXPECT_TRUE(m->info().integrity->plaintext_image);
  EXPECT_FALSE(m->info().integrity->signature_verified);
  EXPECT_FALSE(m->info().encryption.has_value());
  EXPECT_EQ(m->info().weights, WeightsMode::Resident);
  // Served from memory: the same logits as the mapped file, and still after the file is gone.
  const auto mapped = logits_of(Model::load(path, {.n_threads = 1}));
  std::filesystem::remove(path);
  EXPECT_EQ(logits_of(m), mapped);
}

TEST(IntegrityLoad, OneFlippedBitIsRefusedNamingBothDigests) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const auto pin = openssl_sha256(read_bytes(path));
  flip_tensor_bit(path);
  const auto actual = openssl_sha256(read_bytes(path));
  ASSERT_NE(actual, pin);
  std::string code;
  const std::string msg = error_of([&] { load_model(path, with_pin(pin)); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_EQ(msg, "model 'story': SHA-256 " + hex(actual) + " does not match its pin sha256:" + hex(pin));
  // Without a name the file is named.
  LoadOptions o = with_pin(pin);
  o.integrity.model_name.clear();
  EXPECT_NE(error_of([&] { load_model(path, o); }).find("model file '" + path + "'"), std::string::npos);
}

std::vector<size_t>* g_wipes = nullptr;
void record_wipe(const void*, size_t n) {
  if (g_wipes) g_wipes->push_back(n);
}

TEST(IntegrityLoad, ARefusedImageIsWiped) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const size_t size = read_bytes(path).size();
  std::vector<size_t> wipes;
  g_wipes = &wipes;
  crypto::set_wipe_observer_for_testing(record_wipe);
  std::string code;
  error_of([&] { load_model(path, with_pin(crypto::Sha256Digest{})); }, &code);
  crypto::set_wipe_observer_for_testing(nullptr);
  g_wipes = nullptr;
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_TRUE(std::any_of(wipes.begin(), wipes.end(), [&](size_t n) { return n >= size; }))
      << "the image holding the model bytes was not wiped";
}

TEST(IntegrityLoad, MeasuringWithoutAPinReportsTheDigest) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  LoadOptions o = with_pin(std::nullopt);
  EXPECT_FALSE(load_model(path, o)->info().integrity.has_value()) << "nothing asked: not measured";
  o.integrity.measure = true;
  const auto m = load_model(path, o);
  ASSERT_TRUE(m->info().integrity.has_value());
  EXPECT_EQ(m->info().integrity->sha256, hex(openssl_sha256(read_bytes(path))));
}

TEST(IntegrityLoad, SignatureVerifiedMissingMalformedOrWrong) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const SigningKey key(1), other(2);
  LoadOptions o = with_pin(std::nullopt);
  o.integrity.signing_key = key.pub;
  std::string code;

  std::string msg = error_of([&] { load_model(path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_NE(msg.find("model 'story': signature file '" + path + ".sig' is missing"), std::string::npos) << msg;

  key.sign_file(path, path + ".sig");
  const auto m = load_model(path, o);
  ASSERT_TRUE(m->info().integrity.has_value());
  EXPECT_TRUE(m->info().integrity->signature_verified);

  // Signed by another key.
  other.sign_file(path, path + ".sig");
  msg = error_of([&] { load_model(path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_NE(msg.find("does not verify with model_signing_key"), std::string::npos) << msg;

  // A valid signature of different bytes.
  key.sign_file(path, path + ".sig");
  flip_tensor_bit(path);
  msg = error_of([&] { load_model(path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_NE(msg.find("does not verify"), std::string::npos) << msg;

  // Malformed text.
  for (const std::string& bad : {std::string("not hex\n"), std::string(127, 'a'), std::string(130, 'a'),
                                std::string(5000, 'a'), std::string()}) {
    std::ofstream(path + ".sig", std::ios::trunc) << bad;
    msg = error_of([&] { load_model(path, o); }, &code);
    EXPECT_EQ(code, code_string(codes::kIntegrity)) << bad.size();
    EXPECT_NE(msg.find("is malformed"), std::string::npos) << msg;
  }
  // Not a regular file.
  std::filesystem::remove(path + ".sig");
  std::filesystem::create_directory(path + ".sig");
  msg = error_of([&] { load_model(path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  EXPECT_NE(msg.find("signature file"), std::string::npos) << msg;
}

TEST(IntegrityLoad, PinAndSignatureTogether) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  const SigningKey key(3);
  key.sign_file(path, path + ".sig");
  LoadOptions o = with_pin(openssl_sha256(read_bytes(path)));
  o.integrity.signing_key = key.pub;
  const auto m = load_model(path, o);
  EXPECT_TRUE(m->info().integrity->signature_verified);
  crypto::Sha256Digest wrong{};
  o.integrity.pin = wrong;
  std::string code;
  error_of([&] { load_model(path, o); }, &code);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
}

TEST(IntegrityLoad, StreamedPlaintextWeightsAreRefused) {
  TempDir dir;
  const std::string path = copy_model(dir, "story.gguf");
  for (const bool measure_only : {false, true}) {
    LoadOptions o = with_pin(measure_only ? std::nullopt : std::optional(openssl_sha256(read_bytes(path))));
    o.integrity.measure = measure_only;
    o.model.weights = WeightsMode::Stream;
    std::string code;
    EXPECT_EQ(error_of([&] { load_model(path, o); }, &code),
              "model 'story': integrity checks need resident weights or encrypted streaming "
              "(model_decrypt = \"stream\")");
    EXPECT_EQ(code, code_string(codes::kInvalidArgument));
  }
  // Without integrity options the same file streams.
  LoadOptions plain;
  plain.model.n_threads = 1;
  plain.model.weights = WeightsMode::Stream;
  EXPECT_EQ(load_model(path, plain)->info().weights, WeightsMode::Stream);
}

struct Encrypted {
  TempDir dir;
  std::string plain = copy_model(dir, "plain.gguf"), enc = dir.file("story.enc"), key = dir.file("k");
  Encrypted() {
    write_bytes(key, std::vector<uint8_t>(crypto::test::kKeyHexA, crypto::test::kKeyHexA + 64));
    crypto::test::encrypt_to(plain, enc, crypto::test::key_a(), 1u << 16);
  }
  LoadOptions options(DecryptMode mode) const {
    LoadOptions o = with_pin(std::nullopt);
    o.decrypt.mode = mode;
    o.decrypt.key = crypto::file_key_provider(key);
    return o;
  }
};

TEST(IntegrityLoad, EncryptedModelsUseTheAuthenticatedPlaintextDigest) {
  Encrypted e;
  const auto plain_digest = openssl_sha256(read_bytes(e.plain));
  const SigningKey key(4);
  key.sign_file(e.plain, e.enc + ".sig");  // the .sig of x.enc is the plaintext's
  for (const DecryptMode mode : {DecryptMode::Memory, DecryptMode::File, DecryptMode::Stream}) {
    SCOPED_TRACE(to_string(mode));
    LoadOptions o = e.options(mode);
    o.integrity.pin = plain_digest;
    o.integrity.signing_key = key.pub;
    const auto m = load_model(e.enc, o);
    ASSERT_TRUE(m->info().integrity.has_value());
    EXPECT_EQ(m->info().integrity->sha256, hex(plain_digest));
    EXPECT_TRUE(m->info().integrity->signature_verified);
    EXPECT_FALSE(m->info().integrity->plaintext_image);
    ASSERT_TRUE(m->info().encryption.has_value());
    EXPECT_EQ(m->info().encryption->ciphertext_sha256, hex(openssl_sha256(read_bytes(e.enc))));

    crypto::Sha256Digest wrong = plain_digest;
    wrong[0] ^= 1;
    o.integrity.pin = wrong;
    std::string code;
    EXPECT_EQ(error_of([&] { load_model(e.enc, o); }, &code),
              "model 'story': SHA-256 " + hex(plain_digest) + " does not match its pin sha256:" + hex(wrong));
    EXPECT_EQ(code, code_string(codes::kIntegrity));
  }
  // An encrypted model always reports its plaintext digest (no signature without a key).
  const auto m = load_model(e.enc, e.options(DecryptMode::Memory));
  ASSERT_TRUE(m->info().integrity.has_value());
  EXPECT_EQ(m->info().integrity->sha256, hex(plain_digest));
  EXPECT_FALSE(m->info().integrity->signature_verified);
}

TEST(IntegrityLoad, EncryptedModelWithAMissingOrForeignSignatureIsRefused) {
  Encrypted e;
  LoadOptions o = e.options(DecryptMode::Memory);
  o.integrity.signing_key = SigningKey(5).pub;
  std::string code;
  EXPECT_NE(error_of([&] { load_model(e.enc, o); }, &code).find("is missing"), std::string::npos);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
  // A signature over the encrypted file's bytes is not a model signature.
  SigningKey(5).sign_file(e.enc, e.enc + ".sig");
  EXPECT_NE(error_of([&] { load_model(e.enc, o); }, &code).find("does not verify"), std::string::npos);
  EXPECT_EQ(code, code_string(codes::kIntegrity));
}

}  // namespace
}  // namespace a3s::power::integrity_test

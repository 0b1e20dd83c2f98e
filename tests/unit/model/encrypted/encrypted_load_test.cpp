// load_model on encrypted files, in process: identical logits to the plaintext model in the file,
// memory and stream modes, the digests it reports, and the errors (wrong key, tampering, bad options), with the
// decrypted image wiped when a load fails.
#include <gtest/gtest.h>

#include <cstring>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "model/encrypted/key_provider.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"
#include "crypto_test_util.h"
#include "support/gguf_builder.h"
#include "support/synth_models.h"
#include "wipe_log.h"
#include "engine/load.h"

namespace a3s::power::crypto::test {
namespace {



LoadOptions one_thread() {
  LoadOptions o;
  o.model.n_threads = 1;
  return o;
}

std::vector<float> logits_of(const std::shared_ptr<Model>& m, const std::vector<Token>& tokens) {
  Context ctx(m, ContextOptions{.n_ctx = 16});
  const auto l = ctx.eval(tokens, /*all_logits=*/true);
  return {l.begin(), l.end()};
}

std::string error_code_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return "";
}

struct FromPath {};

struct Encrypted {
  TempDir dir;
  std::string plain, enc, key;
  explicit Encrypted(const std::string& model) : Encrypted(FromPath{}, model_path(model)) {}
  Encrypted(FromPath, std::string plain_path) : plain(std::move(plain_path)), enc(dir.file("m.enc")), key(dir.file("k")) {
    write_bytes(key, std::vector<uint8_t>(kKeyHexA, kKeyHexA + 64));
    encrypt_to(plain, enc, key_a(), 1u << 16);
  }
  LoadOptions options(DecryptMode mode) const {
    LoadOptions o;
    o.model.n_threads = 1;
    o.decrypt.mode = mode;
    o.decrypt.key = file_key_provider(key);
    o.decrypt.required = true;
    return o;
  }
};

TEST(EncryptedLoad, LogitsAreBitwiseIdenticalInEveryMode) {
  for (const std::string name : {"stories260K", "tiny-qwen2-Q4_K_M"}) {
    Encrypted e(name);
    const std::vector<Token> tokens = {1, 403, 407, 10};
    const auto ref = logits_of(load_model(e.plain, one_thread()), tokens);
    for (DecryptMode mode : {DecryptMode::File, DecryptMode::Memory, DecryptMode::Stream}) {
      auto m = load_model(e.enc, e.options(mode));
      // Stream decryption streams the weights (the default residency is auto).
      EXPECT_EQ(m->info().weights, mode == DecryptMode::Stream ? WeightsMode::Stream : WeightsMode::Resident);
      const auto got = logits_of(m, tokens);
      ASSERT_EQ(got.size(), ref.size());
      EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)), 0)
          << name << " " << to_string(mode);
      ASSERT_TRUE(m->info().encryption.has_value());
      const EncryptionInfo& info = *m->info().encryption;
      EXPECT_EQ(info.decrypt_mode, to_string(mode));
      EXPECT_EQ(info.plaintext_sha256, to_hex(sha256(read_bytes(e.plain))));
      EXPECT_EQ(info.ciphertext_sha256, to_hex(sha256(read_bytes(e.enc))));
      EXPECT_EQ(info.key_id, to_hex(key_a().key_id()));
      EXPECT_EQ(info.encrypted_size, read_bytes(e.enc).size());
      EXPECT_EQ(m->info().path, e.enc);
      EXPECT_EQ(m->info().file_size, read_bytes(e.plain).size());
    }
  }
}

// Llama 3.1+ rope_freqs comes from the decrypted bytes in every mode: the logits equal the
// plaintext model's, which differ from those of the same weights without the factors.
TEST(EncryptedLoad, RopeFreqsApplyInEveryMode) {
  TempDir src;
  const testing::DerivedModel& d = *testing::find_derived_model("tiny-llama-f32-rope-freqs");
  const std::string plain = src.file("rope.gguf");
  testing::write_derived_model(model_path(d.base), d, plain);
  Encrypted e(FromPath{}, plain);
  const std::vector<Token> tokens = {1, 403, 407, 10, 300, 12, 77, 5};
  const auto ref = logits_of(load_model(e.plain, one_thread()), tokens);
  const auto without = logits_of(load_model(model_path(d.base), one_thread()), tokens);
  ASSERT_EQ(without.size(), ref.size());
  EXPECT_NE(std::memcmp(without.data(), ref.data(), ref.size() * sizeof(float)), 0);
  for (DecryptMode mode : {DecryptMode::File, DecryptMode::Memory, DecryptMode::Stream}) {
    const auto got = logits_of(load_model(e.enc, e.options(mode)), tokens);
    ASSERT_EQ(got.size(), ref.size());
    EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)), 0) << to_string(mode);
  }
}

// The newer architectures (synth presets: qwen3, phi3, gemma3, qwen3moe, Mixtral-layout llama) decrypt
// to the same logits in every mode.
TEST(EncryptedLoad, TheNewerArchitecturesAreBitwiseIdenticalInEveryMode) {
  for (const char* preset : {"qwen3-tiny", "phi3-tiny", "gemma3-tiny", "qwen3moe-tiny", "mixtral-tiny"}) {
    Encrypted e(FromPath{}, testing::synth_preset_model(preset, "Q8_0"));
    const std::vector<Token> tokens = {1, 403, 407, 10, 300, 12, 77, 5, 91, 200, 33, 8};
    const auto ref = logits_of(load_model(e.plain, one_thread()), tokens);
    for (DecryptMode mode : {DecryptMode::File, DecryptMode::Memory, DecryptMode::Stream}) {
      const auto got = logits_of(load_model(e.enc, e.options(mode)), tokens);
      ASSERT_EQ(got.size(), ref.size());
      EXPECT_EQ(std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)), 0) << preset << " " << to_string(mode);
    }
  }
}

TEST(EncryptedLoad, PlaintextModelsHaveNoEncryptionInfo) {
  auto m = load_model(model_path("stories260K"), one_thread());
  EXPECT_FALSE(m->info().encryption.has_value());
}

TEST(EncryptedLoad, TamperedModelFailsAndLeavesNoPlaintext) {
  Encrypted e("stories260K");
  auto bytes = read_bytes(e.enc);
  const size_t plain_size = read_bytes(e.plain).size();
  // Flip a bit in the last chunk: every earlier chunk was decrypted into the image first.
  bytes[bytes.size() - 20] ^= 4;
  write_bytes(e.enc, bytes);
  for (DecryptMode mode : {DecryptMode::File, DecryptMode::Memory}) {
    WipeLog::reset();
    set_wipe_observer_for_testing(&WipeLog::observe);
    std::string msg;
    EXPECT_EQ(error_code_of([&] { load_model(e.enc, e.options(mode)); }, &msg), code_string(codes::kDecryptionFailed));
    set_wipe_observer_for_testing(nullptr);
    EXPECT_NE(msg.find("(the last) failed authentication"), std::string::npos) << msg;
    EXPECT_GE(WipeLog::largest, plain_size) << to_string(mode);
    EXPECT_TRUE(WipeLog::all_zero);
  }
  // Stream mode authenticates the whole file at load too, one chunk at a time: the load fails, and
  // the chunk buffer that held plaintext is wiped.
  WipeLog::reset();
  set_wipe_observer_for_testing(&WipeLog::observe);
  std::string msg;
  EXPECT_EQ(error_code_of([&] { load_model(e.enc, e.options(DecryptMode::Stream)); }, &msg), code_string(codes::kDecryptionFailed));
  set_wipe_observer_for_testing(nullptr);
  EXPECT_NE(msg.find("(the last) failed authentication"), std::string::npos) << msg;
  EXPECT_GE(WipeLog::largest, size_t{1} << 16);  // the chunk size of Encrypted
  EXPECT_TRUE(WipeLog::all_zero);
}

TEST(EncryptedLoad, OptionErrors) {
  Encrypted e("stories260K");
  std::string msg;
  // Decryption asked for, but the model is plaintext.
  EXPECT_EQ(error_code_of([&] { load_model(e.plain, e.options(DecryptMode::Memory)); }, &msg),
            code_string(codes::kInvalidArgument));
  EXPECT_NE(msg.find("is not encrypted"), std::string::npos) << msg;
  // Stream decryption cannot keep the weights resident, and a resident image cannot be streamed.
  LoadOptions o = e.options(DecryptMode::Stream);
  o.model.weights = WeightsMode::Resident;
  EXPECT_EQ(error_code_of([&] { load_model(e.enc, o); }, &msg), code_string(codes::kInvalidArgument));
  // The library names settings by their configuration keys (base/setting_names.h).
  EXPECT_NE(msg.find("needs weights = \"stream\" or auto"), std::string::npos) << msg;
  o = e.options(DecryptMode::Memory);
  o.model.weights = WeightsMode::Stream;
  EXPECT_EQ(error_code_of([&] { load_model(e.enc, o); }, &msg), code_string(codes::kInvalidArgument));
  EXPECT_NE(msg.find("needs model_decrypt = \"stream\""), std::string::npos) << msg;
  // No key anywhere.
  ::unsetenv("A3S_MODEL_KEY");
  EXPECT_EQ(error_code_of([&] { load_model(e.enc, LoadOptions{}); }, &msg), code_string(codes::kModelKey));
  EXPECT_NE(msg.find("model_key_source { file = \"FILE\" }"), std::string::npos) << msg;
  // The key from the environment (the default source).
  ::setenv("A3S_MODEL_KEY", kKeyHexA, 1);
  EXPECT_TRUE(load_model(e.enc, one_thread())->info().encryption.has_value());
  ::setenv("A3S_MODEL_KEY", kKeyHexB, 1);
  EXPECT_EQ(error_code_of([&] { load_model(e.enc, LoadOptions{}); }), code_string(codes::kModelKeyMismatch));
  ::unsetenv("A3S_MODEL_KEY");
}

}  // namespace
}  // namespace a3s::power::crypto::test

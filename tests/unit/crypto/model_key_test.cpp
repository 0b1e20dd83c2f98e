// Model keys: text form, key ids, key sources (file, environment), locked memory and wiping.
#include "crypto/model_key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>

#include "a3s/power/error.h"
#include "model/encrypted/key_provider.h"
#include "crypto/secure_memory.h"
#include "crypto_test_util.h"
#include "wipe_log.h"

namespace a3s::power::crypto::test {
namespace {

std::string error_of(const std::function<void()>& f, std::string* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(ModelKey, ParsesHexWithSurroundingWhitespace) {
  const ModelKey k = ModelKey::from_hex(std::string("  ") + kKeyHexA + "\n", "test");
  for (size_t i = 0; i < kModelKeyBytes; ++i) EXPECT_EQ(k.bytes()[i], i);
  const ModelKey upper =
      ModelKey::from_hex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "t");
  EXPECT_EQ(std::memcmp(upper.bytes().data(), k.bytes().data(), kModelKeyBytes), 0);
  std::array<char, 64> hex{};
  k.to_hex(hex);
  EXPECT_EQ(std::string(hex.data(), hex.size()), kKeyHexA);
}

TEST(ModelKey, RejectsMalformedTextWithoutEchoingIt) {
  const std::string secretish = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbee";  // 63
  for (const std::string& bad :
       {secretish, secretish + "fg", secretish + "f0", std::string("zz") + secretish,
        secretish.substr(0, 32) + " " + secretish.substr(32) + "f", std::string("")}) {
    std::string code;
    const std::string msg = error_of([&] { ModelKey::from_hex(bad, "key file 'k'"); }, &code);
    EXPECT_EQ(code, code_string(codes::kModelKey)) << bad;
    EXPECT_NE(msg.find("key file 'k'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("deadbeef"), std::string::npos) << msg;
  }
}

TEST(ModelKey, KeyIdDependsOnTheKeyOnly) {
  EXPECT_EQ(key_a().key_id(), key_a().key_id());
  EXPECT_NE(key_a().key_id(), key_b().key_id());
  EXPECT_NE(ModelKey::generate().key_id(), ModelKey::generate().key_id());
}

TEST(ModelKey, FileProvider) {
  TempDir dir;
  write_bytes(dir.file("k"), std::vector<uint8_t>(kKeyHexA, kKeyHexA + 64));
  EXPECT_EQ(file_key_provider(dir.file("k"))->fetch().key_id(), key_a().key_id());
  std::string code;
  EXPECT_NE(error_of([&] { file_key_provider(dir.file("missing"))->fetch(); }, &code).find("cannot open"),
            std::string::npos);
  EXPECT_EQ(code, code_string(codes::kModelKey));
  write_bytes(dir.file("bad"), {'x', 'y'});
  EXPECT_NE(error_of([&] { file_key_provider(dir.file("bad"))->fetch(); }, &code).find("64 hex digits"),
            std::string::npos);
  EXPECT_NE(error_of([&] { file_key_provider(dir.path())->fetch(); }).find("not a regular file"),
            std::string::npos);
  write_bytes(dir.file("big"), std::vector<uint8_t>(5000, 'a'));
  EXPECT_NE(error_of([&] { file_key_provider(dir.file("big"))->fetch(); }).find("too large"),
            std::string::npos);
}

TEST(ModelKey, EnvProvider) {
  ::setenv("A3S_TEST_MODEL_KEY", kKeyHexB, 1);
  EXPECT_EQ(env_key_provider("A3S_TEST_MODEL_KEY")->fetch().key_id(), key_b().key_id());
  ::setenv("A3S_TEST_MODEL_KEY", "nothex", 1);
  std::string code;
  const std::string msg = error_of([&] { env_key_provider("A3S_TEST_MODEL_KEY")->fetch(); }, &code);
  EXPECT_EQ(code, code_string(codes::kModelKey));
  EXPECT_NE(msg.find("A3S_TEST_MODEL_KEY"), std::string::npos);
  EXPECT_EQ(msg.find("nothex"), std::string::npos);
  ::unsetenv("A3S_TEST_MODEL_KEY");
  EXPECT_NE(error_of([&] { env_key_provider("A3S_TEST_MODEL_KEY")->fetch(); }).find("not set"),
            std::string::npos);
}

TEST(LockedBuffer, IsWipedOnRelease) {
  WipeLog::reset();
  set_wipe_observer_for_testing(&WipeLog::observe);
  const void* where = nullptr;
  {
    LockedBuffer b(10000, "test buffer");
    ASSERT_EQ(b.size(), 10000u);
    std::memset(b.data(), 0xab, b.size());
    b.protect_read_only();
    where = b.data();
  }
  set_wipe_observer_for_testing(nullptr);
  EXPECT_EQ(WipeLog::last, where);
  EXPECT_GE(WipeLog::last_n, 10000u);
  EXPECT_TRUE(WipeLog::all_zero);
}

TEST(LockedBuffer, SmallBuffersAreLocked) {
  // RLIMIT_MEMLOCK is at least 64 KiB on every Linux default; a key page fits.
  LockedBuffer b(32, "test key");
  EXPECT_TRUE(b.locked());
}

}  // namespace
}  // namespace a3s::power::crypto::test

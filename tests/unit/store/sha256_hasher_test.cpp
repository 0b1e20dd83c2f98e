#include "store/sha256_hasher.h"

#include <gtest/gtest.h>

namespace a3s::power::store {
namespace {

TEST(Sha256Hasher, KnownVectors) {  // FIPS 180-4 examples
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Hasher, StreamingEqualsOneShotAndResets) {
  Sha256Hasher h;
  h.update("a", 1);
  h.update("bc", 2);
  EXPECT_EQ(h.finish_hex(), sha256_hex("abc"));
  h.update("zzz", 3);
  h.reset();
  h.update("abc", 3);
  EXPECT_EQ(h.finish_hex(), sha256_hex("abc"));
}

TEST(Sha256Hasher, HexShape) {
  EXPECT_TRUE(is_sha256_hex(std::string(64, 'F')));
  EXPECT_FALSE(is_sha256_hex(std::string(64, 'g')));
  EXPECT_FALSE(is_sha256_hex(std::string(65, 'a')));
}

}  // namespace
}  // namespace a3s::power::store

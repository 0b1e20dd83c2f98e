#include "config/api_key.h"

#include <openssl/evp.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace a3s::power::config {
namespace {

KeyDigest openssl_sha256(const std::string& data) {
  KeyDigest d{};
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), d.data(), &len, EVP_sha256(), nullptr), 1);
  EXPECT_EQ(len, 32u);
  return d;
}

TEST(ApiKey, RawKeyHashMatchesOpenSslSha256) {
  for (const std::string& raw : std::vector<std::string>{"", "abc", "sk-test-0123456789", std::string(1000, 'x'),
                                                   std::string("a\0b", 3)}) {
    EXPECT_EQ(hash_raw_key(raw), openssl_sha256(raw));
  }
}

TEST(ApiKey, KnownVector) {
  // FIPS 180-4 example: SHA-256("abc").
  auto d = parse_key_digest("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, hash_raw_key("abc"));
}

TEST(ApiKey, DigestParsingIsCaseInsensitiveAndStrict) {
  const std::string lower = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  std::string upper = lower;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(parse_key_digest("sha256:" + upper), parse_key_digest("sha256:" + lower));
  EXPECT_FALSE(parse_key_digest(lower).has_value());                       // no prefix
  EXPECT_FALSE(parse_key_digest("SHA256:" + lower).has_value());           // prefix is lower case
  EXPECT_FALSE(parse_key_digest("sha256:" + lower.substr(1)).has_value()); // 63 digits
  EXPECT_FALSE(parse_key_digest("sha256:" + lower + "0").has_value());     // 65 digits
  EXPECT_FALSE(parse_key_digest("sha256:" + lower.substr(1) + "z").has_value());
  EXPECT_FALSE(parse_key_digest("").has_value());
}

}  // namespace
}  // namespace a3s::power::config

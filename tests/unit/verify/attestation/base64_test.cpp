// Base64 (RFC 4648 §4) of attestation responses: the RFC's vectors, round trips over every length,
// strict rejection of every non-canonical text.
#include "crypto/base64.h"

#include <gtest/gtest.h>

#include "attestation_builder.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using crypto::base64_decode;
using crypto::base64_encode;

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::vector<uint8_t> bytes;
  for (int n = 0; n < 300; ++n) {
    const auto decoded = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(decoded) << n;
    EXPECT_EQ(*decoded, bytes) << n;
    bytes.push_back(static_cast<uint8_t>(n * 37 + 11));
  }
}

TEST(Base64, KnownVectors) {  // RFC 4648 §10
  auto text = [](const char* b64) {
    const auto d = base64_decode(b64);
    return d ? std::string(d->begin(), d->end()) : std::string("<rejected>");
  };
  EXPECT_EQ(text(""), "");
  EXPECT_EQ(text("Zg=="), "f");
  EXPECT_EQ(text("Zm8="), "fo");
  EXPECT_EQ(text("Zm9v"), "foo");
  EXPECT_EQ(text("Zm9vYg=="), "foob");
  EXPECT_EQ(text("Zm9vYmE="), "fooba");
  EXPECT_EQ(text("Zm9vYmFy"), "foobar");
  for (const char* plain : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    const std::string p(plain);
    EXPECT_EQ(text(base64_encode(std::vector<uint8_t>(p.begin(), p.end())).c_str()), p);
  }
  EXPECT_EQ(base64_encode(std::vector<uint8_t>{'f', 'o', 'o', 'b'}), "Zm9vYg==");
  EXPECT_EQ(text("+/+/"), "\xfb\xff\xbf");
}

TEST(Base64, RejectsEverythingElse) {
  for (const char* bad : {"Zg", "Zg=", "Zg===", "Zh==", "Zm9=", "Z===", "=Zm9", "Zm=v", "Zm9v\n", " Zm9v",
                          "Zm9v=", "Zm9-", "Zm9_", "Zg=a", "Zm 9v", "Zm9v\xff\xff\xff\xff"})
    EXPECT_FALSE(base64_decode(bad)) << bad;
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

// Base64 (RFC 4648 §4): the RFC's test vectors, round trips over every length near a block boundary,
// and strict rejection of non-canonical text.
#include <gtest/gtest.h>

#include "crypto/base64.h"

namespace a3s::power::crypto {
namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(bytes_of(plain)), encoded);
    const auto back = base64_decode(encoded);
    ASSERT_TRUE(back.has_value()) << encoded;
    EXPECT_EQ(*back, bytes_of(plain));
  }
}

TEST(Base64, RoundTripsEveryLengthAndByte) {
  for (size_t n = 0; n < 70; ++n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(255 - 37 * i);
    const auto back = base64_decode(base64_encode(v));
    ASSERT_TRUE(back.has_value()) << n;
    EXPECT_EQ(*back, v) << n;
  }
}

TEST(Base64, RejectsNonCanonicalText) {
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zg=a", "Zm 9v", "Zm9v\n", "Zm9-", "Zm9_", "=Zm9", "Zm=v"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace a3s::power::crypto

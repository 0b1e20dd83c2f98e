// crypto::equal_constant_time and crypto::wipe (secure_memory.h).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "crypto/secure_memory.h"

namespace a3s::power::crypto {
namespace {

TEST(EqualConstantTime, EqualOnlyForTheSameSizeAndBytes) {
  const std::array<uint8_t, 4> a{1, 2, 3, 4}, b{1, 2, 3, 4}, last{1, 2, 3, 5}, first{0, 2, 3, 4};
  EXPECT_TRUE(equal_constant_time(a, b));
  EXPECT_FALSE(equal_constant_time(a, last));
  EXPECT_FALSE(equal_constant_time(a, first));
  EXPECT_FALSE(equal_constant_time(a, std::span<const uint8_t>(b).first(3)));  // a prefix is not equal
  EXPECT_FALSE(equal_constant_time(std::span<const uint8_t>(a).first(0), b));
  EXPECT_TRUE(equal_constant_time(std::span<const uint8_t>(), std::span<const uint8_t>()));
}

TEST(Wipe, ZeroesEveryByteOfTheAllocation) {
  std::vector<uint8_t> v(64, 0xAB);
  v.resize(16);
  wipe_allocation(v);
  EXPECT_EQ(v.size(), 16u);
  const uint8_t* p = v.data();
  for (size_t i = 0; i < v.capacity(); ++i) EXPECT_EQ(p[i], 0) << i;
}

}  // namespace
}  // namespace a3s::power::crypto

// Plaintext images: the sealed memfd ("file" mode) and locked memory ("memory" mode) that hold a
// decrypted model; both are wiped when filling fails.
#include "model/sources/plaintext_image.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "crypto/secure_memory.h"
#include "wipe_log.h"

namespace a3s::power::weights {
namespace {

using crypto::test::WipeLog;

void fill_pattern(std::span<uint8_t> s) {
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(i * 7 + 1);
}

TEST(PlaintextImage, LockedImageHoldsTheBytes) {
  auto img = make_locked_image(100000, fill_pattern);
  ASSERT_EQ(img->bytes().size(), 100000u);
  for (size_t i = 0; i < 100000; i += 997) EXPECT_EQ(img->bytes()[i], static_cast<uint8_t>(i * 7 + 1));
  EXPECT_TRUE(img->locked());
  EXPECT_EQ(img->memfd(), -1);
}

TEST(PlaintextImage, SealedMemfdHoldsTheBytesAndCannotBeChanged) {
  auto img = make_sealed_memfd_image(100000, "a3s-test", fill_pattern);
  ASSERT_EQ(img->bytes().size(), 100000u);
  for (size_t i = 0; i < 100000; i += 997) EXPECT_EQ(img->bytes()[i], static_cast<uint8_t>(i * 7 + 1));
  const int fd = img->memfd();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::fcntl(fd, F_GET_SEALS), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  const uint8_t x = 0;
  EXPECT_EQ(::pwrite(fd, &x, 1, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(::ftruncate(fd, 10), 0);
  // The file has no name on any filesystem.
  char target[256] = {};
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  ASSERT_GT(::readlink(link.c_str(), target, sizeof target - 1), 0);
  EXPECT_EQ(std::string(target).rfind("/memfd:a3s-test", 0), 0u) << target;
}

TEST(PlaintextImage, FailedFillIsWipedInBothModes) {
  auto failing = [](std::span<uint8_t> s) {
    fill_pattern(s.first(s.size() / 2));
    throw std::runtime_error("decryption failed half way");
  };
  crypto::set_wipe_observer_for_testing(&WipeLog::observe);
  WipeLog::reset();
  EXPECT_THROW(make_locked_image(50000, failing), std::runtime_error);
  EXPECT_GE(WipeLog::largest, 50000u);
  EXPECT_TRUE(WipeLog::all_zero);
  WipeLog::reset();
  EXPECT_THROW(make_sealed_memfd_image(50000, "a3s-test", failing), std::runtime_error);
  EXPECT_GE(WipeLog::largest, 50000u);
  EXPECT_TRUE(WipeLog::all_zero);
  crypto::set_wipe_observer_for_testing(nullptr);
}

TEST(PlaintextImage, LockedImageIsWipedOnRelease) {
  crypto::set_wipe_observer_for_testing(&WipeLog::observe);
  WipeLog::reset();
  { auto img = make_locked_image(30000, fill_pattern); }
  crypto::set_wipe_observer_for_testing(nullptr);
  EXPECT_GE(WipeLog::largest, 30000u);
  EXPECT_TRUE(WipeLog::all_zero);
}

}  // namespace
}  // namespace a3s::power::weights

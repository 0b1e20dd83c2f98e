// crypto::equal_constant_time and crypto::wipe (secure_memory.h).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
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

// The VmFlags line of the mapping of /proc/self/smaps that holds address p ("" when none does).
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

size_t g_largest_wipe = 0;  // the observer's record (a plain function pointer, no capture)
void record_wipe(const void*, size_t n) {
  if (n > g_largest_wipe) g_largest_wipe = n;
}

TEST(LockedBuffer, AHugePageBufferIsAlignedAdvisedAndStillKeptOutOfDumpsAndWiped) {
  const size_t size = LockedBuffer::kHugePageBytes * 2 + 4096 + 5;
  g_largest_wipe = 0;
  {
    LockedBuffer huge(size, "test", LockedBuffer::Pages::kHuge);
    ASSERT_NE(huge.data(), nullptr);
    EXPECT_EQ(huge.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(huge.data()) % LockedBuffer::kHugePageBytes, 0u);
    for (size_t i = 0; i < size; i += 4093) EXPECT_EQ(huge.data()[i], 0) << i;
    huge.data()[size - 1] = 0x5A;  // writable to its last byte
    const std::string flags = vm_flags_of(huge.data());
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;  // MADV_HUGEPAGE
    EXPECT_NE(flags.find(" dd"), std::string::npos) << flags;  // MADV_DONTDUMP
    huge.protect_read_only();
    set_wipe_observer_for_testing(record_wipe);
  }
  set_wipe_observer_for_testing(nullptr);
  EXPECT_GE(g_largest_wipe, size);  // wiped before it was unmapped, read-only or not

  // A base-page buffer is not advised for huge pages.
  LockedBuffer base(size, "test");
  const std::string flags = vm_flags_of(base.data());
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
  EXPECT_NE(flags.find(" dd"), std::string::npos) << flags;
}

}  // namespace
}  // namespace a3s::power::crypto

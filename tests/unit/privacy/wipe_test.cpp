// The wipe primitives on request data: every release (wipe_string, growth of a container with the
// wiping allocator, destruction) zeroes the bytes, observed through crypto::set_wipe_observer_for_testing
// while the memory is still mapped.
#include "privacy/wipe_text.h"
#include "privacy/wiping_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "crypto/secure_memory.h"

namespace a3s::power::privacy {
namespace {

struct Wiped {
  const uint8_t* p;
  size_t n;
  bool all_zero;
};
std::vector<Wiped>* g_wiped = nullptr;

void observe(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  g_wiped->push_back({b, n, std::all_of(b, b + n, [](uint8_t x) { return x == 0; })});
}

class WipeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_wiped = &wiped_;
    crypto::set_wipe_observer_for_testing(observe);
  }
  void TearDown() override {
    crypto::set_wipe_observer_for_testing(nullptr);
    g_wiped = nullptr;
  }
  // True when a zeroed wipe covered [p, p + n).
  bool covered(const void* p, size_t n) const {
    const auto* b = static_cast<const uint8_t*>(p);
    return std::any_of(wiped_.begin(), wiped_.end(),
                       [&](const Wiped& w) { return w.all_zero && w.p <= b && b + n <= w.p + w.n; });
  }
  std::vector<Wiped> wiped_;
};

using WipingString = std::basic_string<char, std::char_traits<char>, WipingAllocator<char>>;

const std::string kCanary = "CANARY-7f3a the patient's diagnosis is confidential, long enough for the heap";

TEST_F(WipeTest, HeapStringIsWipedByWipeString) {
  std::string s = kCanary;
  const void* where = s.data();
  wipe_string(s);
  EXPECT_TRUE(covered(where, kCanary.size()));
  EXPECT_TRUE(s.empty());
}

TEST_F(WipeTest, SmallStringInlineBufferIsWiped) {
  auto holder = std::make_unique<std::string>("short");  // heap-held: the inline buffer's address is stable
  const void* where = holder->data();
  wipe_string(*holder);
  EXPECT_TRUE(covered(where, 5));
}

TEST_F(WipeTest, WipeOnExitWipesWhenTheScopeEnds) {
  std::string s = kCanary;
  const void* where = s.data();
  { WipeOnExit w(s); }
  EXPECT_TRUE(covered(where, kCanary.size()));
  EXPECT_TRUE(s.empty());
}

TEST_F(WipeTest, GrowthWipesTheOldAllocation) {
  WipingString s(kCanary.data(), kCanary.size());
  const void* old = s.data();
  const size_t old_size = s.size();
  while (s.data() == old) s.append(kCanary.data(), kCanary.size());
  EXPECT_TRUE(covered(old, old_size));
}

TEST_F(WipeTest, ADestroyedHeapStringWithTheWipingAllocatorIsWiped) {
  const void* where = nullptr;
  {
    WipingString s(kCanary.data(), kCanary.size());
    where = s.data();
  }
  EXPECT_TRUE(covered(where, kCanary.size()));
}

TEST_F(WipeTest, TokensAreWipedOnGrowthAndEnd) {
  std::vector<int32_t, WipingAllocator<int32_t>> t;
  for (int32_t i = 1; i <= 4; ++i) t.push_back(1000 + i);
  const void* first = t.data();
  for (int32_t i = 0; i < 1000; ++i) t.push_back(i + 1);
  EXPECT_TRUE(covered(first, 4 * sizeof(int32_t)));
  std::vector<int32_t> plain(t.begin(), t.end());
  const void* last = plain.data();
  const size_t n = plain.size();
  wipe_vector(plain);
  EXPECT_TRUE(covered(last, n * sizeof(int32_t)));
  EXPECT_EQ(plain.size(), 0u);
}

TEST_F(WipeTest, WipeJsonWipesEveryStringValueAndLeavesNull) {
  nlohmann::json j = {{"messages", {{{"role", "user"}, {"content", kCanary}}}}};
  const void* where = j["messages"][0]["content"].get_ref<std::string&>().data();
  wipe_json(j);
  EXPECT_TRUE(covered(where, kCanary.size()));
  EXPECT_TRUE(j.is_null());
}

}  // namespace
}  // namespace a3s::power::privacy

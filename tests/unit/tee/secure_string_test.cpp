// The wipe primitive on request buffers: every release (destruction, growth, end of request) zeroes the
// bytes, observed through crypto::set_wipe_observer_for_testing while the memory is still mapped.
#include "tee/secure_string.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "crypto/secure_memory.h"
#include "tee/request_buffers.h"

namespace a3s::power::tee {
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

const std::string kCanary = "CANARY-7f3a the patient's diagnosis is confidential, long enough for the heap";

TEST_F(WipeTest, HeapStringIsWipedOnDestruction) {
  const void* where = nullptr;
  {
    SecureString s(kCanary);
    where = s.data();
    ASSERT_EQ(s.view(), kCanary);
  }
  EXPECT_TRUE(covered(where, kCanary.size()));
}

TEST_F(WipeTest, SmallStringInlineBufferIsWiped) {
  const std::string small = "short";
  auto holder = std::make_unique<SecureString>(small);  // heap-held: the inline buffer's address is stable
  const void* where = holder->data();
  holder.reset();
  EXPECT_TRUE(covered(where, small.size()));
}

TEST_F(WipeTest, GrowthWipesTheOldAllocation) {
  SecureString s(kCanary);
  const void* old = s.data();
  const size_t old_size = s.size();
  while (s.data() == old) s.append(kCanary);
  EXPECT_TRUE(covered(old, old_size));
}

TEST_F(WipeTest, MovedFromStringIsWiped) {
  SecureString a(std::string_view("tiny"));
  const void* where = a.data();
  SecureString b(std::move(a));
  EXPECT_EQ(b.view(), "tiny");
  EXPECT_TRUE(covered(where, 4));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
}

TEST_F(WipeTest, TokensAreWipedOnGrowthAndEnd) {
  SecureTokens t;
  for (int32_t i = 1; i <= 4; ++i) t.push_back(1000 + i);
  const void* first = t.data();
  for (int32_t i = 0; i < 1000; ++i) t.push_back(i + 1);
  EXPECT_TRUE(covered(first, 4 * sizeof(int32_t)));
  const void* last = t.data();
  const size_t n = t.size();
  t.wipe();
  EXPECT_TRUE(covered(last, n * sizeof(int32_t)));
  EXPECT_EQ(t.size(), 0u);
}

TEST_F(WipeTest, RequestBuffersAreWipedWhenTheRequestEnds) {
  RequestBuffers req;
  req.prompt.append(kCanary);
  req.response.append(kCanary + " (completion)");
  for (int32_t i = 0; i < 64; ++i) req.tokens.push_back(i + 7);
  const void* prompt = req.prompt.data();
  const void* response = req.response.data();
  const void* tokens = req.tokens.data();
  const size_t n_prompt = req.prompt.size(), n_response = req.response.size(), n_tokens = req.tokens.size();

  req.end();
  EXPECT_TRUE(covered(prompt, n_prompt));
  EXPECT_TRUE(covered(response, n_response));
  EXPECT_TRUE(covered(tokens, n_tokens * sizeof(int32_t)));
  EXPECT_TRUE(req.prompt.empty());
  EXPECT_TRUE(req.response.empty());
  EXPECT_EQ(req.tokens.size(), 0u);
}

TEST_F(WipeTest, RequestBuffersAreWipedOnDestruction) {
  const void* prompt = nullptr;
  size_t n = 0;
  {
    RequestBuffers req;
    req.prompt.append(kCanary);
    prompt = req.prompt.data();
    n = req.prompt.size();
  }
  EXPECT_TRUE(covered(prompt, n));
}

}  // namespace
}  // namespace a3s::power::tee

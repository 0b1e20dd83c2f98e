#include "base/utc_time.h"

#include <gtest/gtest.h>

#include <ctime>
#include <regex>

namespace a3s::power {
namespace {

TEST(UtcTime, Rfc3339WithSecondsAndZ) {
  const std::time_t before = std::time(nullptr);
  const std::string s = rfc3339_utc_now();
  const std::time_t after = std::time(nullptr);
  ASSERT_TRUE(std::regex_match(s, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)"))) << s;
  std::tm tm{};
  ASSERT_NE(strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm), nullptr);
  const std::time_t t = timegm(&tm);
  EXPECT_GE(t, before);
  EXPECT_LE(t, after);
}

}  // namespace
}  // namespace a3s::power

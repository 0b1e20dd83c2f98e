// Detection order (configfs-tsm, /dev/sev-guest, /dev/tdx_guest, none) and the policy on a machine
// without a usable provider.
#include "tee/detect.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "a3s/power/error.h"
#include "a3s/power/error.h"
#include "tee_test_data.h"

namespace a3s::power::tee {
namespace {

namespace fs = std::filesystem;
using namespace testing;

DetectOptions options_for(const fs::path& root, TeePolicy policy) {
  DetectOptions o;
  o.root = root;
  o.policy = policy;
  o.ioctl = [](const fs::path&, unsigned long, void*) { return ENODEV; };
  return o;
}

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  write_text(p, "");
}

void expect_tee_unavailable(const DetectOptions& o) {
  try {
    detect_provider(o);
    FAIL() << "a provider was selected";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kTeeUnavailable);
    EXPECT_NE(std::string(e.what()).find("strict"), std::string::npos) << e.what();
  }
}

TEST(Detect, NothingFound) {
  TempRoot root;
  EXPECT_EQ(detect_provider(options_for(root.path(), TeePolicy::kDevelopment))->name(), "simulated");
  expect_tee_unavailable(options_for(root.path(), TeePolicy::kStrict));
}

TEST(Detect, ConfigfsTsmComesFirst) {
  TempRoot root;
  fs::create_directories(root.fs_path() / "sys/kernel/config/tsm/report");
  touch(root.fs_path() / "dev/sev-guest");
  touch(root.fs_path() / "dev/tdx_guest");
  EXPECT_EQ(detect_provider(options_for(root.path(), TeePolicy::kStrict))->name(), "configfs-tsm");
}

TEST(Detect, SevGuestBeforeTdxGuest) {
  TempRoot root;
  fs::create_directories(root.fs_path() / "sys/kernel/config/tsm");  // tsm without report: not usable
  touch(root.fs_path() / "dev/sev-guest");
  touch(root.fs_path() / "dev/tdx_guest");
  EXPECT_EQ(detect_provider(options_for(root.path(), TeePolicy::kStrict))->name(), "/dev/sev-guest");
}

TEST(Detect, TdxGuestOnlyInDevelopment) {
  TempRoot root;
  touch(root.fs_path() / "dev/tdx_guest");
  EXPECT_EQ(detect_provider(options_for(root.path(), TeePolicy::kDevelopment))->name(), "/dev/tdx_guest");
  expect_tee_unavailable(options_for(root.path(), TeePolicy::kStrict));
}

TEST(TeePolicyText, ParsesOnlyKnownValues) {
  EXPECT_EQ(parse_tee_policy("strict"), TeePolicy::kStrict);
  EXPECT_EQ(parse_tee_policy("development"), TeePolicy::kDevelopment);
  EXPECT_STREQ(to_string(TeePolicy::kDevelopment), "development");
  EXPECT_FALSE(parse_tee_policy("Strict").has_value());
  EXPECT_FALSE(parse_tee_policy("").has_value());
}

}  // namespace
}  // namespace a3s::power::tee

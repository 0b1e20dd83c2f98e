// config::load derives the effective privacy settings: redact_logs from tee_mode, suppress_token_metrics
// from redact_logs, the strict-policy refusal of redact_logs = false, and effective_json.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

TEST(ConfigPrivacy, OffByDefault) {
  TempDir dir;
  Config c = load_text(dir, "");
  EXPECT_FALSE(c.redact_logs);
  EXPECT_FALSE(c.suppress_token_metrics);
  EXPECT_EQ(c.effective_json()["redact_logs"], false);
  EXPECT_EQ(c.effective_json()["suppress_token_metrics"], false);
}

TEST(ConfigPrivacy, TeeModeImpliesRedactionAndRoundedCounts) {
  TempDir dir;
  Config c = load_text(dir, "tee_mode = true\n");
  EXPECT_TRUE(c.redact_logs);
  EXPECT_TRUE(c.suppress_token_metrics);
  EXPECT_EQ(c.effective_json()["redact_logs"], true);
  EXPECT_EQ(c.effective_json()["suppress_token_metrics"], true);
}

TEST(ConfigPrivacy, RedactLogsImpliesSuppressTokenMetrics) {
  TempDir dir;
  Config c = load_text(dir, "redact_logs = true\n");
  EXPECT_TRUE(c.redact_logs);
  EXPECT_TRUE(c.suppress_token_metrics);
  EXPECT_FALSE(c.tee_mode);
}

TEST(ConfigPrivacy, SuppressTokenMetricsAlone) {
  TempDir dir;
  Config c = load_text(dir, "suppress_token_metrics = true\n");
  EXPECT_FALSE(c.redact_logs);
  EXPECT_TRUE(c.suppress_token_metrics);
}

TEST(ConfigPrivacy, EnvironmentSetsTheKeys) {
  TempDir dir;
  Config c = load_text(dir, "", {{"A3S_POWER_REDACT_LOGS", "on"}});
  EXPECT_TRUE(c.redact_logs);
  EXPECT_TRUE(c.suppress_token_metrics);
}

TEST(ConfigPrivacy, StrictTeeModeRefusesRedactLogsOff) {
  TempDir dir;
  // tee_policy defaults to "strict".
  const std::string msg = config_error_of([&] { load_text(dir, "tee_mode = true\nredact_logs = false\n"); });
  EXPECT_NE(msg.find("'redact_logs'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("strict"), std::string::npos) << msg;
  // Also when the two come from different sources.
  const std::string env_msg =
      config_error_of([&] { load_text(dir, "redact_logs = false\n", {{"A3S_POWER_TEE_MODE", "1"}}); });
  EXPECT_NE(env_msg.find("'redact_logs'"), std::string::npos) << env_msg;
}

TEST(ConfigPrivacy, RedactLogsOffWithoutTeeModeIsAccepted) {
  TempDir dir;
  Config c = load_text(dir, "redact_logs = false\n");
  EXPECT_FALSE(c.redact_logs);
  EXPECT_FALSE(c.suppress_token_metrics);
}

TEST(ConfigPrivacy, ExactCountsAreRefusedWhileRedacting) {
  TempDir dir;
  const std::string msg =
      config_error_of([&] { load_text(dir, "redact_logs = true\nsuppress_token_metrics = false\n"); });
  EXPECT_NE(msg.find("'suppress_token_metrics'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace a3s::power::config::test

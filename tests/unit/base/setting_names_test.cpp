// Settings named in messages: the configuration key by default, the flag for the CLI, both for serve.
#include "base/setting_names.h"

#include <gtest/gtest.h>

namespace a3s::power {
namespace {

class SettingNames : public ::testing::Test {
 protected:
  void TearDown() override { set_setting_spelling(SettingSpelling::kConfig); }
};

TEST_F(SettingNames, TheDefaultIsTheConfigurationKey) {
  EXPECT_EQ(setting_spelling(), SettingSpelling::kConfig);
  EXPECT_EQ(setting(Setting::kWeights, "stream"), "weights = \"stream\"");
  EXPECT_EQ(setting(Setting::kModelDecrypt, "stream"), "model_decrypt = \"stream\"");
  EXPECT_EQ(setting(Setting::kModelKeyFile, "FILE"), "model_key_source { file = \"FILE\" }");
  EXPECT_EQ(setting(Setting::kWeights), "weights");
}

TEST_F(SettingNames, TheCliSpellsFlags) {
  set_setting_spelling(SettingSpelling::kCli);
  EXPECT_EQ(setting(Setting::kWeights, "stream"), "--weights stream");
  EXPECT_EQ(setting(Setting::kModelDecrypt, "stream"), "--decrypt stream");
  EXPECT_EQ(setting(Setting::kModelKeyFile, "FILE"), "--model-key-file FILE");
  EXPECT_EQ(setting(Setting::kModelDecrypt), "--decrypt");
}

TEST_F(SettingNames, TheServerShowsTheKeyAndTheFlag) {
  set_setting_spelling(SettingSpelling::kConfigAndCli);
  EXPECT_EQ(setting(Setting::kWeights, "resident"), "weights = \"resident\" (--weights resident)");
}

}  // namespace
}  // namespace a3s::power

// docs/configuration.md documents every key, its variable and every block type.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "config/schema.h"

namespace a3s::power::config {
namespace {

TEST(ConfigDocs, EveryKeyAndVariableIsDocumented) {
  std::ifstream in(std::string(A3S_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(in) << "docs/configuration.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const auto& k : attribute_keys()) {
    EXPECT_NE(doc.find("`" + k.name + "`"), std::string::npos) << k.name;
    if (!k.env.empty()) {
      EXPECT_NE(doc.find(k.env), std::string::npos) << k.env;
    }
  }
  for (const auto& b : block_types()) EXPECT_NE(doc.find("`" + b + "`"), std::string::npos) << b;
}

}  // namespace
}  // namespace a3s::power::config

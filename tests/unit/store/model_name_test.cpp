#include "store/model_name.h"

#include <gtest/gtest.h>

#include <set>

#include "a3s/power/error.h"

namespace a3s::power::store {
namespace {

TEST(ModelName, AcceptsOrdinaryNames) {
  for (const char* n : {"stories260K", "org/repo:Q4_K_M", "llama 3.1 8b", "модель", "a", "."})
    EXPECT_EQ(model_name_problem(n), "") << n;
  EXPECT_EQ(model_name_problem(std::string(256, 'x')), "");
}

TEST(ModelName, RejectsEmptyLongControlAndInvalidUtf8) {
  EXPECT_NE(model_name_problem(""), "");
  EXPECT_NE(model_name_problem(std::string(257, 'x')), "");
  EXPECT_NE(model_name_problem("a\tb"), "");
  EXPECT_NE(model_name_problem("a\x7f"), "");
  EXPECT_NE(model_name_problem(std::string("a\0b", 3)), "");
  EXPECT_NE(model_name_problem("\xC3"), "");          // truncated sequence
  EXPECT_NE(model_name_problem("\xC0\xAF"), "");      // overlong '/'
  EXPECT_NE(model_name_problem("\xED\xA0\x80"), "");  // surrogate
  EXPECT_NE(model_name_problem("\xFF"), "");
}

TEST(ModelName, ValidateThrowsInvalidArgumentWithoutEchoingTheName) {
  try {
    validate_model_name("secret\nname");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()).find("secret"), std::string::npos);
  }
}

TEST(ModelName, EscapeKeepsSafeCharactersAndEscapesTheRest) {
  EXPECT_EQ(manifest_file_stem("stories260K"), "stories260K");
  EXPECT_EQ(manifest_file_stem("a.b_c"), "a.b_c");
  EXPECT_EQ(manifest_file_stem("org/repo:quant"), "org%2Frepo%3Aquant");
  EXPECT_EQ(manifest_file_stem("org-repo-quant"), "org%2Drepo%2Dquant");
  EXPECT_EQ(manifest_file_stem("100%"), "100%25");
  EXPECT_EQ(manifest_file_stem("é"), "%C3%A9");
}

TEST(ModelName, EscapeIsInjectiveOnTrickyNames) {
  const std::vector<std::string> names = {"org/repo:quant",
                                          "org-repo-quant",
                                          "org%2Frepo%3Aquant",
                                          "org_repo_quant",
                                          "a/b",
                                          "a%2Fb",
                                          "a%252Fb",
                                          "A/B",
                                          "..",
                                          "%",
                                          "%%",
                                          "%25"};
  std::set<std::string> stems;
  for (const auto& n : names) stems.insert(manifest_file_stem(n));
  EXPECT_EQ(stems.size(), names.size());
}

TEST(ModelName, LongNamesGetABoundedHashedStem) {
  const std::string a(256, '/'), b(255, '/');
  const std::string sa = manifest_file_stem(a), sb = manifest_file_stem(b);
  EXPECT_LE(sa.size() + 5, 255u);
  EXPECT_EQ(sa.rfind("%%sha256-", 0), 0u);
  EXPECT_NE(sa, sb);
  EXPECT_EQ(manifest_file_stem(a), sa);  // deterministic
  // Plain stems never contain "%%", so hashed stems cannot collide with them.
  EXPECT_EQ(manifest_file_stem("%%").find("%%"), std::string::npos);
}

}  // namespace
}  // namespace a3s::power::store

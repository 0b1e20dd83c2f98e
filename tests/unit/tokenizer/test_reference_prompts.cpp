// The prompts of the reference generations (../shared/testdata/reference/<model>.p<i>.json) encode
// with add_special = true to exactly the `prompt_tokens` llama.cpp used.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "tokenizer_test_util.h"

namespace a3s::power {
namespace {

TEST(ReferencePrompts, EncodeWithBosMatchesPromptTokens) {
  const auto dir = test::testdata() / "reference";
  const std::regex name_re(R"((.+)\.p[123]\.json)");
  std::map<std::string, std::unique_ptr<Tokenizer>> by_model;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string fname = entry.path().filename().string();
    if (!std::regex_match(fname, m, name_re)) continue;
    const std::string model = m[1];
    auto& tok = by_model[model];
    if (!tok) tok = test::load_tokenizer(test::testdata() / "models" / (model + ".gguf"));
    const auto ref = nlohmann::json::parse(test::read_file(entry.path()));
    const std::vector<Token> expected = ref.at("prompt_tokens").get<std::vector<Token>>();
    const std::string prompt = ref.at("prompt").get<std::string>();
    EXPECT_EQ(tok->encode(prompt, /*add_special=*/true, /*parse_special=*/false), expected) << fname;
    EXPECT_EQ(tok->n_vocab(), ref.at("n_vocab").get<int>()) << fname;
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

}  // namespace
}  // namespace a3s::power

// The prompts of the reference generations (../shared/testdata/reference/<model>.p<i>.json) encode
// with add_special = true to exactly the `prompt_tokens` llama.cpp used.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer_test_util.h"

namespace a3s::power {
namespace {

TEST(ReferencePrompts, EncodeWithBosMatchesPromptTokens) {
  const auto dir = test::testdata() / "reference";
  // "<model>.p<1|2|3>.json"
  auto model_of = [](const std::string& fname) -> std::string {
    const std::string tail = ".p1.json";
    if (fname.size() <= tail.size()) return {};
    const std::string t = fname.substr(fname.size() - tail.size());
    if (t.rfind(".p", 0) != 0 || t.substr(3) != ".json" || t[2] < '1' || t[2] > '3') return {};
    return fname.substr(0, fname.size() - tail.size());
  };
  std::map<std::string, std::unique_ptr<Tokenizer>> by_model;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string fname = entry.path().filename().string();
    const std::string model = model_of(fname);
    if (model.empty()) continue;
    auto& tok = by_model[model];
    if (!tok) tok = test::load_tokenizer(test::testdata() / "models" / (model + ".gguf"));
    const auto ref = nlohmann::json::parse(test::read_file(entry.path()));
    const std::vector<Token> expected = ref.at("prompt_tokens").get<std::vector<Token>>();
    const std::string prompt = ref.at("prompt").get<std::string>();
    EXPECT_EQ(tok->encode(prompt, /*add_special=*/true, /*parse_special=*/false), expected) << fname;
    EXPECT_EQ(tok->n_vocab(), ref.at("n_vocab").get<int>()) << fname;
    ++checked;
  }
  // Three prompts for every model in models/.
  int models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::testdata() / "models")) {
    models += entry.path().extension() == ".gguf" ? 1 : 0;
  }
  EXPECT_GT(models, 0);
  EXPECT_EQ(checked, 3 * models);
}

}  // namespace
}  // namespace a3s::power

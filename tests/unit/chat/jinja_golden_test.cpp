// The Jinja interpreter alone on every template of the shared test data, every case: the rendering
// equals the Python Jinja2 output byte for byte, or the template raises the expected error.
#include <gtest/gtest.h>

#include <cctype>

#include "a3s/power/error.h"
#include "chat/jinja/template.h"
#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

struct JinjaCase {
  std::string template_name;
  std::string case_name;
};

void PrintTo(const JinjaCase& c, std::ostream* os) { *os << c.template_name << "/" << c.case_name; }

std::vector<JinjaCase> jinja_cases() {
  std::vector<JinjaCase> cases;
  try {
    for (const auto& name : testing::template_names()) {
      const auto expected = testing::read_json(testing::templates_dir() + "/" + name + ".expected.json");
      for (const auto& [case_name, input] : expected["cases"].items()) cases.push_back({name, case_name});
    }
  } catch (const std::exception&) {
  }
  return cases;
}

// Renders one case; returns "" when it matches, else what differs.
std::string jinja_mismatch(const JinjaCase& c) {
  const auto data = testing::read_json(testing::templates_dir() + "/" + c.template_name + ".expected.json");
  const auto& input = data["cases"][c.case_name];
  const auto& expected = data["results"][c.case_name];
  const nlohmann::ordered_json* tools = input.contains("tools") ? &input["tools"] : nullptr;
  try {
    const auto tmpl = jinja::Template::parse(testing::template_source(c.template_name));
    auto ctx = jinja::chat_context(input["messages"], tools, input.value("add_generation_prompt", true),
                                   data["bos_token"].get<std::string>(), data["eos_token"].get<std::string>());
    ctx.now = jinja::parse_date(data["date_for_strftime_now"].get<std::string>());
    const auto out = tmpl.render(ctx);
    if (!expected["ok"].get<bool>()) return "rendered, but the template raises " + expected["error"].get<std::string>();
    const std::string want = expected["output"].get<std::string>();
    if (out.text == want) return "";
    std::size_t at = 0;
    while (at < out.text.size() && at < want.size() && out.text[at] == want[at]) ++at;
    return "differs at byte " + std::to_string(at) + "\nrendered:\n" + out.text + "\nexpected:\n" + want;
  } catch (const Error& e) {
    if (!expected["ok"].get<bool>() && std::string(e.what()) == expected["error"].get<std::string>()) return "";
    return std::string("error: ") + e.what() +
           (expected["ok"].get<bool>() ? "" : "\nexpected error: " + expected["error"].get<std::string>());
  }
}

class JinjaGolden : public ::testing::TestWithParam<JinjaCase> {};

TEST_P(JinjaGolden, MatchesJinja2) {
  const std::string mismatch = jinja_mismatch(GetParam());
  EXPECT_EQ(mismatch, "") << GetParam().template_name << " / " << GetParam().case_name;
}

std::string jinja_case_name(const ::testing::TestParamInfo<JinjaCase>& info) {
  std::string name = info.param.template_name + "_" + info.param.case_name;
  for (auto& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(SharedTemplates, JinjaGolden, ::testing::ValuesIn(jinja_cases()), jinja_case_name);

TEST(JinjaGoldenData, EveryTemplateHasCases) {
  const auto names = testing::template_names();
  EXPECT_GE(names.size(), 25u);
  EXPECT_EQ(jinja_cases().size(), names.size() * 6);
}

}  // namespace
}  // namespace a3s::power::chat

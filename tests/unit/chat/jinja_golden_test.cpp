// The Jinja interpreter alone on every template of the shared test data, every case, and on this
// suite's edge cases (data/extra_cases.json, the 10 family templates): the rendering equals the
// Python Jinja2 output byte for byte, or the template raises the expected error.
#include <gtest/gtest.h>

#include <cctype>

#include "a3s/power/error.h"
#include "chat/jinja/template.h"
#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

struct JinjaCase {
  std::string suite;  // "shared" (the test data's own cases) or "extra" (tests/unit/chat/data/extra_cases.json)
  std::string template_name;
  std::string case_name;
};

void PrintTo(const JinjaCase& c, std::ostream* os) { *os << c.suite << ":" << c.template_name << "/" << c.case_name; }

const nlohmann::ordered_json& jinja_extra_cases() {
  static const nlohmann::ordered_json kExtra =
      testing::read_json(std::string(A3S_SOURCE_DIR) + "/tests/unit/chat/data/extra_cases.json");
  return kExtra;
}

std::vector<JinjaCase> jinja_cases() {
  std::vector<JinjaCase> cases;
  try {
    for (const auto& name : testing::template_names()) {
      const auto expected = testing::read_json(testing::templates_dir() + "/" + name + ".expected.json");
      for (const auto& [case_name, input] : expected["cases"].items()) cases.push_back({"shared", name, case_name});
    }
    for (const auto& [name, results] : jinja_extra_cases()["results"].items()) {
      for (const auto& [case_name, result] : results.items()) cases.push_back({"extra", name, case_name});
    }
  } catch (const std::exception&) {
  }
  return cases;
}

// Renders one case; returns "" when it matches, else what differs.
std::string jinja_mismatch(const JinjaCase& c) {
  const auto data = c.suite == "shared"
                        ? testing::read_json(testing::templates_dir() + "/" + c.template_name + ".expected.json")
                        : jinja_extra_cases();
  const auto& input = data["cases"][c.case_name];
  const auto& expected =
      c.suite == "shared" ? data["results"][c.case_name] : data["results"][c.template_name][c.case_name];
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
  std::string name = info.param.suite + "_" + info.param.template_name + "_" + info.param.case_name;
  for (auto& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Templates, JinjaGolden, ::testing::ValuesIn(jinja_cases()), jinja_case_name);

TEST(JinjaGoldenData, EveryTemplateHasCases) {
  const auto names = testing::template_names();
  EXPECT_GE(names.size(), 25u);
  std::size_t shared = 0;
  for (const auto& c : jinja_cases()) shared += c.suite == "shared" ? 1 : 0;
  EXPECT_EQ(shared, names.size() * 6);
  EXPECT_EQ(jinja_cases().size() - shared, 120u);
}

}  // namespace
}  // namespace a3s::power::chat

namespace a3s::power::chat {
namespace {

// Truncated and mutated shared templates: each either renders or fails with a3s::power::Error
// (syntax or template error), never another exception or a crash.
TEST(JinjaRobustness, TruncatedAndMutatedTemplatesFailCleanly) {
  const auto data = testing::read_json(testing::templates_dir() + "/Qwen-QwQ-32B.expected.json");
  const auto& input = data["cases"]["tool_call_roundtrip"];
  std::uint64_t rng = 0x9e3779b97f4a7c15ull;
  auto next = [&rng] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  static constexpr char kBytes[] = "{}%#-+()[]'\"|.,:~=!<> \n\tabcifornotin0123456789";
  int rendered = 0, failed = 0;
  for (const auto& name : testing::template_names()) {
    const std::string src = testing::template_source(name);
    for (int k = 0; k < 60; ++k) {
      std::string mutated = src;
      if (k % 2 == 0) {
        mutated.resize(next() % (src.size() + 1));
      } else {
        for (int m = 0; m < 3; ++m) mutated[next() % mutated.size()] = kBytes[next() % (sizeof kBytes - 1)];
      }
      try {
        const auto t = jinja::Template::parse(mutated);
        const auto ctx = jinja::chat_context(input["messages"], &input["tools"], true, "<s>", "</s>");
        jinja::Limits limits;
        limits.max_loop_iterations = 100000;
        t.render(ctx, limits);
        ++rendered;
      } catch (const Error&) {
        ++failed;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " variant " << k << ": " << e.what();
      }
    }
  }
  EXPECT_GT(rendered, 0);
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace a3s::power::chat

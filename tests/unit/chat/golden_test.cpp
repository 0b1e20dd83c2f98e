// Every template of the shared test data, every case: the rendering equals the Python Jinja2
// output byte for byte, or the template's own error message is reproduced. Tool cases may instead
// be refused explicitly (FieldError "unsupported_field", param "tools"); the refusals are counted
// so that the gap is visible.
#include <gtest/gtest.h>

#include <cctype>

#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

using testing::GoldenCase;

enum class Outcome { kExact, kSameError, kUnsupported, kWrong };

struct Result {
  Outcome outcome;
  std::string detail;
};

Result run(const GoldenCase& c) {
  const auto tmpl = ChatTemplate::create(testing::template_source(c.template_name));
  const auto opts = testing::options_for(c.input);
  try {
    const std::string out = tmpl->render_ordered(c.input["messages"], opts);
    if (c.expected["ok"].get<bool>() && out == c.expected["output"].get<std::string>())
      return {Outcome::kExact, ""};
    return {Outcome::kWrong,
            c.expected["ok"].get<bool>()
                ? "rendered:\n" + out + "\nexpected:\n" + c.expected["output"].get<std::string>()
                : "rendered, but the template raises " + c.expected["error"].get<std::string>()};
  } catch (const FieldError& e) {
    if (e.code() == "unsupported_field" && e.param() == "tools" && testing::is_tools_case(c)) {
      return {Outcome::kUnsupported, e.what()};
    }
    return {Outcome::kWrong, std::string("FieldError ") + e.code() + ": " + e.what()};
  } catch (const Error& e) {
    if (!c.expected["ok"].get<bool>() && e.code() == "invalid_request_error" &&
        e.what() == c.expected["error"].get<std::string>()) {
      return {Outcome::kSameError, ""};
    }
    return {Outcome::kWrong,
            std::string("Error ") + e.code() + ": " + e.what() + "\nexpected: " +
                (c.expected["ok"].get<bool>() ? "output" : c.expected["error"].get<std::string>())};
  }
}

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesJinja2) {
  const GoldenCase& c = GetParam();
  const Result r = run(c);
  EXPECT_NE(r.outcome, Outcome::kWrong) << c.template_name << " / " << c.case_name << "\n" << r.detail;
}

std::string test_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.suite + "_" + info.param.template_name + "_" + info.param.case_name;
  for (auto& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(ChatTemplates, GoldenTest, ::testing::ValuesIn(testing::golden_cases()), test_name);

TEST(GoldenData, SharedTemplatesArePresent) {
  const auto names = testing::template_names();
  EXPECT_GE(names.size(), 10u) << "shared chat templates missing under " << testing::templates_dir();
}

// The tools / tool_call_roundtrip cases of the shared data: how many are reproduced exactly (or with
// the template's own error) and how many are refused as unsupported. Update the numbers when a
// family gains or loses exact tool support.
TEST(GoldenData, ToolCaseCoverageIsCounted) {
  int exact = 0;
  int unsupported = 0;
  int wrong = 0;
  for (const auto& c : testing::golden_cases()) {
    if (c.suite != "shared" || (c.case_name != "tools" && c.case_name != "tool_call_roundtrip")) continue;
    switch (run(c).outcome) {
      case Outcome::kExact:
      case Outcome::kSameError:
        ++exact;
        break;
      case Outcome::kUnsupported:
        ++unsupported;
        break;
      case Outcome::kWrong:
        ++wrong;
        break;
    }
  }
  RecordProperty("tool_cases_exact", exact);
  RecordProperty("tool_cases_unsupported", unsupported);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(exact, 20);
  EXPECT_EQ(unsupported, 0);
}

// Non-tool cases must never be refused.
TEST(GoldenData, NonToolCasesAreAlwaysExact) {
  int checked = 0;
  for (const auto& c : testing::golden_cases()) {
    if (testing::is_tools_case(c)) continue;
    const Result r = run(c);
    EXPECT_TRUE(r.outcome == Outcome::kExact || r.outcome == Outcome::kSameError)
        << c.suite << " " << c.template_name << " / " << c.case_name << "\n"
        << r.detail;
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

}  // namespace
}  // namespace a3s::power::chat

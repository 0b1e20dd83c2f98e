// The grammars of required tool calls: in every syntax a grammar can write, a call the grammar
// accepts parses back (chat/tool_calls.h) as that call; a named choice admits only its function; the
// arguments follow the function's parameters.
#include "runtime/tool_grammar.h"

#include <gtest/gtest.h>

#include "chat/field_error.h"
#include "grammar/matcher.h"

namespace a3s::power::runtime {
namespace {

using ojson = nlohmann::ordered_json;
using chat::ToolCallSyntax;

ojson tools() {
  return ojson::parse(R"([
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string", "maxLength": 12}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
      "required": ["city"], "additionalProperties": false}}},
    {"type": "function", "function": {"name": "get_time"}}
  ])");
}

bool accepts(const std::shared_ptr<const grammar::Grammar>& g, const std::string& text) {
  grammar::Matcher m(g);
  return m.accept(text) && m.can_end();
}

struct Case {
  ToolCallSyntax syntax;
  std::string weather;  // a call of get_weather in the syntax
  std::string two;      // get_weather then get_time
};

std::vector<Case> cases() {
  return {
      {ToolCallSyntax::kHermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
       "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n"
       "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>"},
      {ToolCallSyntax::kLlama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
       "{\"name\": \"get_weather\", \"parameters\": {\"city\":\"Paris\"}}; {\"name\": \"get_time\", \"parameters\": {}}"},
      {ToolCallSyntax::kMistral, "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
       "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"get_time\", "
       "\"arguments\": {}}]"},
      {ToolCallSyntax::kFunctionary, "get_weather\n{\"city\": \"Paris\"}", "get_weather\n{\"city\": \"Paris\"}>>>get_time\n{}"},
      {ToolCallSyntax::kCommandR,
       "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]"
       "<|END_ACTION|>",
       "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}, "
       "{\"tool_call_id\": \"0\", \"tool_name\": \"get_time\", \"parameters\": {}}]<|END_ACTION|>"},
      {ToolCallSyntax::kDeepseekR1,
       "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
       "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
       "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
       "<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜>"
       "<｜tool▁calls▁end｜>"},
      {ToolCallSyntax::kGptOss, "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}",
       ""},
  };
}

TEST(ToolGrammar, EveryWritableSyntaxParsesBackAsTheCall) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(chat::tool_call_syntax_name(c.syntax));
    const auto any = tool_call_grammar(c.syntax, tools(), "", /*parallel=*/true);
    EXPECT_TRUE(accepts(any, c.weather));
    const chat::ParsedReply one = chat::parse_tool_calls(c.weather, c.syntax);
    ASSERT_EQ(one.calls.size(), 1u);
    EXPECT_EQ(one.calls[0].name, "get_weather");
    EXPECT_EQ(nlohmann::json::parse(one.calls[0].arguments), nlohmann::json::parse("{\"city\":\"Paris\"}"));
    EXPECT_EQ(one.content, "");
    if (!c.two.empty() && c.syntax == ToolCallSyntax::kLlama3) {
      EXPECT_FALSE(accepts(any, c.two));  // Llama 3.x templates take one call per turn
    } else if (!c.two.empty()) {
      EXPECT_TRUE(accepts(any, c.two));
      EXPECT_EQ(chat::parse_tool_calls(c.two, c.syntax).calls.size(), 2u);
      // One call only without parallel calls.
      EXPECT_FALSE(accepts(tool_call_grammar(c.syntax, tools(), "", /*parallel=*/false), c.two));
    }
    // A named choice admits only that function.
    EXPECT_TRUE(accepts(tool_call_grammar(c.syntax, tools(), "get_weather", true), c.weather));
    EXPECT_FALSE(accepts(tool_call_grammar(c.syntax, tools(), "get_time", true), c.weather));
    // Text instead of a call, a missing required argument or an argument out of its schema: refused.
    EXPECT_FALSE(accepts(any, "Sure, let me check."));
    std::string no_city = c.weather;
    no_city.replace(no_city.find("{\"city\": \"Paris\"}"), 17, "{}");
    EXPECT_FALSE(accepts(any, no_city));
    std::string too_long = c.weather;
    too_long.replace(too_long.find("Paris"), 5, "Parisparisparis");
    EXPECT_FALSE(accepts(any, too_long));
  }
}

TEST(ToolGrammar, SyntaxesAGrammarCannotWriteAreRefusedByName) {
  for (ToolCallSyntax s : {ToolCallSyntax::kNone, ToolCallSyntax::kDeepseekDsml}) {
    try {
      tool_call_grammar(s, tools(), "", true);
      FAIL();
    } catch (const chat::FieldError& e) {
      EXPECT_EQ(e.param(), "tool_choice");
      EXPECT_EQ(e.code(), "unsupported_field");
    }
  }
}

TEST(ToolGrammar, AnUnsupportedParametersKeywordNamesTheTool) {
  ojson t = tools();
  t[1]["function"]["parameters"] = ojson::parse(R"({"type": "object", "properties": {"n": {"type": "number", "multipleOf": 3}}})");
  try {
    tool_call_grammar(ToolCallSyntax::kHermes, t, "", true);
    FAIL();
  } catch (const chat::FieldError& e) {
    EXPECT_EQ(e.param(), "tools");
    EXPECT_EQ(e.code(), "unsupported_field");
    EXPECT_NE(std::string(e.what()).find("tools[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("multipleOf"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace a3s::power::runtime

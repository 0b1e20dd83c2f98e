// Validation of messages and tools: clear errors naming the field, never the text, and no crash.
#include "chat/conversation.h"
#include "chat/messages.h"

#include <gtest/gtest.h>

#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

const std::string kSecret = "SECRET-PROMPT-TEXT";

// Renders with a real template and returns the FieldError it throws.
FieldError render_error(const json& messages, const ojson& tools = nullptr) {
  const auto t = ChatTemplate::create(testing::template_source("Qwen-Qwen2.5-7B-Instruct"));
  RenderOptions o;
  o.tools = tools;
  try {
    t->render(messages, o);
  } catch (const FieldError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a FieldError";
  return FieldError(codes::kInternal, "none", "none");
}

struct BadInput {
  const char* messages;
  const char* code;
  const char* message;
};

class BadMessagesTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadMessagesTest, FailsWithATemplatedMessage) {
  const BadInput& c = GetParam();
  const FieldError e = render_error(json::parse(c.messages));
  EXPECT_EQ(e.code(), c.code);
  EXPECT_EQ(e.param(), "messages");
  EXPECT_STREQ(e.what(), c.message);
  EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos);
}

const BadInput kBadInputs[] = {
    {R"({"role":"user","content":"SECRET-PROMPT-TEXT"})", "invalid_request_error",
     "messages must be an array"},
    {R"("SECRET-PROMPT-TEXT")", "invalid_request_error", "messages must be an array"},
    {R"([])", "invalid_request_error", "messages must contain at least one message"},
    {R"(["SECRET-PROMPT-TEXT"])", "invalid_request_error", "messages[0] must be an object"},
    {R"([{"content":"SECRET-PROMPT-TEXT"}])", "invalid_request_error", "messages[0].role must be a string"},
    {R"([{"role":7,"content":"SECRET-PROMPT-TEXT"}])", "invalid_request_error",
     "messages[0].role must be a string"},
    {R"([{"role":"user","content":"a"},{"role":"SECRET-PROMPT-TEXT","content":"b"}])",
     "invalid_request_error", "messages[1].role must be one of system, user, assistant, tool"},
    {R"([{"role":"user"}])", "invalid_request_error",
     "messages[0].content must be a string or an array of text parts"},
    {R"([{"role":"user","content":null}])", "invalid_request_error",
     "messages[0].content must be a string or an array of text parts"},
    {R"([{"role":"user","content":42}])", "invalid_request_error",
     "messages[0].content must be a string or an array of text parts"},
    {R"([{"role":"user","content":{"text":"SECRET-PROMPT-TEXT"}}])", "invalid_request_error",
     "messages[0].content must be a string or an array of text parts"},
    {R"([{"role":"user","content":["SECRET-PROMPT-TEXT"]}])", "invalid_request_error",
     "messages[0].content[0] must be an object"},
    {R"([{"role":"user","content":[{"text":"SECRET-PROMPT-TEXT"}]}])", "invalid_request_error",
     "messages[0].content[0].type must be a string"},
    {R"([{"role":"user","content":[{"type":"text","text":5}]}])", "invalid_request_error",
     "messages[0].content[0].text must be a string"},
    {R"([{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}])",
     "unsupported_field", "messages[0].content[1]: only content parts of type \"text\" are supported"},
    {R"([{"role":"user","content":"a","tool_calls":[]}])", "invalid_request_error",
     "messages[0].tool_calls is only allowed on assistant messages"},
    {R"([{"role":"assistant","content":null,"tool_calls":{"a":1}}])", "invalid_request_error",
     "messages[0].tool_calls must be an array"},
    {R"([{"role":"assistant","content":null,"tool_calls":[{"id":"1"}]}])", "invalid_request_error",
     "messages[0].tool_calls[0].function must be an object"},
    {R"([{"role":"assistant","content":null,"tool_calls":[{"id":1,"function":{"name":"f","arguments":"{}"}}]}])",
     "invalid_request_error", "messages[0].tool_calls[0].id must be a string"},
    {R"([{"role":"assistant","content":null,"tool_calls":[{"function":{"arguments":"{}"}}]}])",
     "invalid_request_error", "messages[0].tool_calls[0].function.name must be a string"},
    {R"([{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f"}}]}])",
     "invalid_request_error", "messages[0].tool_calls[0].function.arguments must be a string or an object"},
    {R"([{"role":"assistant","content":null,"tool_calls":null}])", "invalid_request_error",
     "messages[0].content must be a string or an array of text parts"},
    {R"([{"role":"tool","content":"x","tool_call_id":3}])", "invalid_request_error",
     "messages[0].tool_call_id must be a string"},
    {R"([{"role":"user","content":"x","name":["SECRET-PROMPT-TEXT"]}])", "invalid_request_error",
     "messages[0].name must be a string"},
};

INSTANTIATE_TEST_SUITE_P(Messages, BadMessagesTest, ::testing::ValuesIn(kBadInputs));

TEST(Tools, MalformedToolsAreRejected) {
  const json messages = json::parse(R"([{"role":"user","content":"hi"}])");
  for (const char* tools : {R"({"type":"function"})", R"(["SECRET-PROMPT-TEXT"])", R"([{"type":5}])",
                            R"([{"type":"function"}])", R"([{"type":"function","function":{"name":1}}])"}) {
    SCOPED_TRACE(tools);
    const FieldError e = render_error(messages, ojson::parse(tools));
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_EQ(e.param(), "tools");
    EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos);
  }
}

TEST(ParseMessages, TextPartsAreJoinedWithNewlinesAndNullToolCallsDropped) {
  const auto out = to_json(parse_messages(ojson::parse(
      R"([{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"x":1},)"
      R"({"role":"assistant","content":"c","tool_calls":null},)"
      R"({"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{}}}]}])"),
      MessagePolicy::kTemplate));
  EXPECT_EQ(out[0]["content"], "a\nb");
  EXPECT_EQ(out[0]["x"], 1);
  EXPECT_FALSE(out[1].contains("tool_calls"));
  EXPECT_TRUE(out[2]["content"].is_null());
}

TEST(ParseMessages, KeyOrderIsKept) {
  const auto out = to_json(
      parse_messages(ojson::parse(R"([{"role":"user","content":"a","zeta":1,"alpha":2}])"), MessagePolicy::kTemplate));
  std::string keys;
  for (const auto& [k, v] : out[0].items()) keys += k + ",";
  EXPECT_EQ(keys, "role,content,zeta,alpha,");
}

// The HTTP API's policy: the exact field as param, the API's refusals, developer taken as system.
FieldError api_error(const char* messages) {
  try {
    parse_messages(json::parse(messages), MessagePolicy::kApi);
  } catch (const FieldError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a FieldError";
  return FieldError(codes::kInternal, "none", "none");
}

TEST(ParseMessages, ApiPolicyNamesTheExactField) {
  struct Case {
    const char* messages;
    const char* code;
    const char* param;
    const char* message;
  };
  const Case cases[] = {
      {R"([])", "invalid_request_error", "messages", "'messages' must not be empty"},
      {R"([{"role":"function","content":"SECRET-PROMPT-TEXT","name":"f"}])", "unsupported_field",
       "messages[0].role", "'messages[0].role' is not supported: the legacy function role is not available; use tool"},
      {R"([{"role":"assistant","content":"x","function_call":{"name":"f"}}])", "unsupported_field",
       "messages[0].function_call",
       "'messages[0].function_call' is not supported: the legacy function_call is not available; use tool_calls"},
      {R"([{"role":"user","content":"SECRET-PROMPT-TEXT","tool_calls":[]}])", "invalid_request_error",
       "messages[0].tool_calls", "'messages[0].tool_calls' is only allowed on assistant messages"},
      {R"([{"role":"user","content":"SECRET-PROMPT-TEXT","tool_call_id":"1"}])", "invalid_request_error",
       "messages[0].tool_call_id", "'messages[0].tool_call_id' is only allowed on tool messages"},
      {R"([{"role":"tool","content":"SECRET-PROMPT-TEXT","tool_call_id":5}])", "invalid_request_error",
       "messages[0].tool_call_id", "'messages[0].tool_call_id' must be a string"},
      {R"([{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}])", "invalid_request_error",
       "messages[0].tool_calls[0].function.arguments", "'messages[0].tool_calls[0].function.arguments' must be a string or an object"},
      {R"([{"role":"assistant","tool_calls":[]}])", "invalid_request_error", "messages[0].content",
       "'messages[0].content' is required"},
      {R"([{"role":"user","content":"x","SECRET-PROMPT-TEXT":1}])", "unsupported_field", "messages[0]",
       "'messages[0]' has an unknown field"},
      {R"([{"role":"user","content":[{"type":"text","text":"a","SECRET-PROMPT-TEXT":1}]}])", "unsupported_field",
       "messages[0].content[0]", "'messages[0].content[0]' has an unknown field"},
      {R"([{"role":"user","content":[{"type":"image_url"}]}])", "unsupported_field", "messages[0].content[0].type",
       "'messages[0].content[0].type' is not supported: only text content parts are available"},
      {R"([{"role":"user","content":null}])", "invalid_request_error", "messages[0].content",
       "'messages[0].content' is required"},
      {R"([{"role":"user","content":"x","name":5}])", "invalid_request_error", "messages[0].name",
       "'messages[0].name' must be a string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.messages);
    const FieldError e = api_error(c.messages);
    EXPECT_EQ(e.code(), c.code);
    EXPECT_EQ(e.param(), c.param);
    EXPECT_STREQ(e.what(), c.message);
    EXPECT_EQ(std::string(e.what()).find(kSecret), std::string::npos);
  }
}

TEST(ParseMessages, ApiPolicyTakesToolCallsAndToolResults) {
  // A call whose arguments are not valid JSON is history as given: it does not fail the request.
  const Messages m = parse_messages(
      json::parse(R"([{"role":"user","content":"weather?"},)"
                  R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
                  R"("function":{"name":"get_weather","arguments":"{not json"}}]},)"
                  R"({"role":"tool","tool_call_id":"call_1","content":"sunny"}])"),
      MessagePolicy::kApi);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_FALSE(m[1].content.has_value());
  ASSERT_TRUE(m[1].tool_calls.has_value());
  EXPECT_EQ((*m[1].tool_calls)[0]["function"]["arguments"], "{not json");
  EXPECT_EQ(m[2].role, Role::kTool);
  EXPECT_EQ(m[2].tool_call_id, "call_1");
  EXPECT_EQ(m[2].content, "sunny");
}

TEST(ParseMessages, ApiPolicyTakesDeveloperAsSystemAndKeepsTheName) {
  const Messages m = parse_messages(
      json::parse(R"([{"role":"developer","content":"s","name":"n","refusal":null},)"
                  R"({"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}])"),
      MessagePolicy::kApi);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].role, Role::kSystem);
  EXPECT_EQ(m[0].name, "n");
  EXPECT_TRUE(m[0].extra.empty()) << "a null field counts as not given";
  EXPECT_EQ(m[1].content, "a\nb");
}

TEST(ParseMessages, TemplateErrorsNeverContainMessageText) {
  // Gemma rejects the system role; Mistral rejects a bad tool call id: messages are fixed texts.
  const auto gemma = ChatTemplate::create(testing::template_source("google-gemma-2-2b-it"));
  try {
    gemma->render(
        json::parse(R"([{"role":"system","content":"SECRET-PROMPT-TEXT"},{"role":"user","content":"x"}])"),
        {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_STREQ(e.what(), "TemplateError: System role not supported");
  }
  const auto phi = ChatTemplate::create(testing::template_source("microsoft-Phi-3.5-mini-instruct"));
  try {
    phi->render(
        json::parse(
            R"([{"role":"user","content":"SECRET-PROMPT-TEXT"},{"role":"assistant","content":null,)"
            R"("tool_calls":[{"function":{"name":"SECRET-PROMPT-TEXT","arguments":"SECRET-PROMPT-TEXT"}}]}])"),
        {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "TypeError: can only concatenate str (not \"NoneType\") to str");
  }
}

}  // namespace
}  // namespace a3s::power::chat

// The plain format (no template), and the variants without a shared test template (Llama 2,
// Llama 3.0, generic ChatML, Phi-3): expected strings are what Python Jinja2 renders for the
// published templates of those models. The sources below are minimal texts carrying each
// variant's signature.
#include <gtest/gtest.h>

#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

using nlohmann::json;

json conv(const char* text) {
  return json::parse(text);
}

RenderOptions opts(bool add_generation_prompt = true) {
  RenderOptions o;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  o.add_generation_prompt = add_generation_prompt;
  return o;
}

const char* kUserOnly = R"([{"role":"user","content":" Hello! "}])";
const char* kSystemUser = R"([{"role":"system","content":"Be nice."},{"role":"user","content":"Hi"}])";
const char* kMulti =
    R"([{"role":"system","content":""},{"role":"user","content":"Hi"},)"
    R"({"role":"assistant","content":" Hello. "},{"role":"user","content":"Joke about 🦙?"}])";
const char* kAssistantFirst = R"([{"role":"assistant","content":"x"}])";

TEST(Plain, SingleUserMessageIsTheRawText) {
  const auto t = ChatTemplate::create(std::nullopt);
  EXPECT_EQ(t->render(conv(R"([{"role":"user","content":"Once upon a time"}])"), opts()), "Once upon a time");
  EXPECT_EQ(t->render(conv(R"([{"role":"user","content":[{"type":"text","text":"Once upon"},)"
                           R"({"type":"text","text":"a time"}]}])"),
                      opts(false)),
            "Once upon\na time");  // text parts are joined with "\n"
}

TEST(Plain, ConversationsUseRoleLines) {
  const auto t = ChatTemplate::create(std::nullopt);
  EXPECT_EQ(t->render(conv(kSystemUser), opts()), "System: Be nice.\nUser: Hi\nAssistant:");
  EXPECT_EQ(t->render(conv(kMulti), opts(false)),
            "System: \nUser: Hi\nAssistant:  Hello. \nUser: Joke about 🦙?\n");
  EXPECT_EQ(t->render(conv(R"([{"role":"user","content":"a"},{"role":"tool","content":"b"}])"), opts()),
            "User: a\nTool: b\nAssistant:");
}

TEST(Plain, ToolsAreRefusedExplicitly) {
  const auto t = ChatTemplate::create(std::nullopt);
  RenderOptions o = opts();
  o.tools = nlohmann::ordered_json::parse(R"([{"type":"function","function":{"name":"f"}}])");
  try {
    t->render(conv(kUserOnly), o);
    FAIL() << "expected unsupported_field";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.code(), "unsupported_field");
    EXPECT_EQ(e.param(), "tools");
  }
  o.tools = nlohmann::ordered_json::array();  // an empty list is no tools at all
  EXPECT_EQ(t->render(conv(kUserOnly), o), " Hello! ");
  const json calls =
      conv(R"([{"role":"user","content":"x"},{"role":"assistant","content":null,)"
           R"("tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]}])");
  try {
    t->render(calls, opts());
    FAIL() << "expected unsupported_field";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.code(), "unsupported_field");
    EXPECT_EQ(e.param(), "messages");
  }
}

struct VariantCase {
  const char* source;
  const char* variant;
  const char* messages;
  bool add_generation_prompt;
  const char* expected;  // output, or "!" + error message
};

class VariantTest : public ::testing::TestWithParam<VariantCase> {};

TEST_P(VariantTest, MatchesJinja2) {
  const VariantCase& c = GetParam();
  const auto t = ChatTemplate::create(std::string(c.source));
  ASSERT_EQ(t->variant(), c.variant);
  const std::string expected = c.expected;
  try {
    const std::string out = t->render(conv(c.messages), opts(c.add_generation_prompt));
    EXPECT_EQ(out, expected);
  } catch (const Error& e) {
    EXPECT_EQ("!" + std::string(e.what()), expected);
    EXPECT_EQ(e.code(), "invalid_request_error");
  }
}

const char* kLlama2 = "{{ bos_token + '[INST] ' }}{{ '<<SYS>>\\n' }}";
const char* kLlama30 =
    "{{ '<|start_header_id|>' + r + '<|end_header_id|>\\n\\n' + c | trim + '<|eot_id|>' }}";
const char* kChatml = "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>'}}";
const char* kChatmlBos =
    "{{ bos_token }}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>'}}";
const char* kChatmlDefault =
    "{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>'}}";
const char* kPhi3 = "{{'<|system|>\\n'}}{{'<|user|>\\n' + c + '<|end|>\\n'}}{{'<|assistant|>\\n'}}";

const VariantCase kVariantCases[] = {
    {kLlama2, "llama2", kUserOnly, true, "<s>[INST] Hello! [/INST]"},
    {kLlama2, "llama2", kSystemUser, false, "<s>[INST] <<SYS>>\nBe nice.\n<</SYS>>\n\nHi [/INST]"},
    {kLlama2, "llama2", kMulti, true,
     "<s>[INST] <<SYS>>\n\n<</SYS>>\n\nHi [/INST] Hello. </s><s>[INST] Joke about 🦙? [/INST]"},
    {kLlama2, "llama2", kAssistantFirst, true,
     "!TemplateError: Conversation roles must alternate user/assistant/user/assistant/..."},
    {kLlama30, "llama3.0", kUserOnly, true,
     "<s><|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>assistant<|end_"
     "header_id|>\n\n"},
    {kLlama30, "llama3.0", kSystemUser, false,
     "<s><|start_header_id|>system<|end_header_id|>\n\nBe "
     "nice.<|eot_id|><|start_header_id|>user<|end_header_id|>"
     "\n\nHi<|eot_id|>"},
    {kLlama30, "llama3.0", kMulti, true,
     "<s><|start_header_id|>system<|end_header_id|>\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>"
     "\n\nHi"
     "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello.<|eot_id|><|start_header_id|>user"
     "<|end_header_id|>\n\nJoke about 🦙?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"},
    {kChatml, "chatml", kUserOnly, true, "<|im_start|>user\n Hello! <|im_end|>\n<|im_start|>assistant\n"},
    {kChatml, "chatml", kMulti, false,
     "<|im_start|>system\n<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n Hello. "
     "<|im_end|>\n"
     "<|im_start|>user\nJoke about 🦙?<|im_end|>\n"},
    {kChatmlBos, "chatml", kSystemUser, true,
     "<s><|im_start|>system\nBe nice.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
    {kChatmlDefault, "chatml", kUserOnly, false,
     "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n Hello! <|im_end|>\n"},
    {kChatmlDefault, "chatml", kAssistantFirst, true,
     "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>assistant\nx<|im_end|>\n"
     "<|im_start|>assistant\n"},
    {kChatmlDefault, "chatml", kSystemUser, true,
     "<|im_start|>system\nBe nice.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
    {kPhi3, "phi3", kMulti, false,
     "<|system|>\n<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\n Hello. <|end|>\n<|user|>\nJoke about "
     "🦙?<|end|>\n</s>"},
    {kPhi3, "phi3", kUserOnly, true, "<|user|>\n Hello! <|end|>\n<|assistant|>\n"},
};

INSTANTIATE_TEST_SUITE_P(Variants, VariantTest, ::testing::ValuesIn(kVariantCases));

TEST(Fallback, AppliesToModelsWithoutATemplateAndToTemplatesTheInterpreterCannotRun) {
  // No template: the fallback instead of the plain format.
  const auto none = ChatTemplate::create(std::nullopt, "llama2");
  EXPECT_EQ(none->variant(), "llama2");
  EXPECT_EQ(none->render(conv(kUserOnly), opts()), "<s>[INST] Hello! [/INST]");
  EXPECT_EQ(ChatTemplate::create(std::string("  \n"), "chatml")->family(), "chatml");
  // A template the interpreter cannot parse: the fallback instead of an error.
  const std::string broken = "{% for m in messages %}{{ m.content }";
  EXPECT_EQ(ChatTemplate::create(broken, "plain")->render(conv(kUserOnly), opts()), " Hello! ");
  EXPECT_THROW(ChatTemplate::create(broken), Error);
  // An unrecognised template the interpreter runs: the model's own, fallback or not.
  EXPECT_EQ(ChatTemplate::create(std::string("{{ messages[0].content }}"), "llama2")->family(), "jinja");
  // A recognised one is its family.
  EXPECT_EQ(ChatTemplate::create(testing::template_source("Qwen-Qwen2.5-7B-Instruct"), "llama2")->family(), "chatml");
}

TEST(Dates, Llama32PrintsTheGivenOrCurrentDate) {
  const auto t = ChatTemplate::create(testing::template_source("meta-llama-Llama-3.2-3B-Instruct"));
  RenderOptions o = opts();
  o.today = "2024-02-09";
  EXPECT_NE(t->render(conv(kUserOnly), o).find("Today Date: 09 Feb 2024\n"), std::string::npos);
  o.today = "";
  EXPECT_NE(t->render(conv(kUserOnly), o).find("Today Date: "), std::string::npos);
  for (const char* bad : {"2024-13-01", "yesterday", "2024/02/09", "2024-02-9"}) {
    o.today = bad;
    try {
      t->render(conv(kUserOnly), o);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), "invalid_argument");
    }
  }
}

TEST(ToolArguments, AdaptConvertsArgumentsToWhatTheTemplateExpects) {
  const json messages = conv(
      R"([{"role":"user","content":"Find cats"},{"role":"assistant","content":null,)"
      R"("tool_calls":[{"id":"abcDEF123","type":"function","function":{"name":"search","arguments":"{\"q\": \"cats\"}"}}]},)"
      R"({"role":"tool","tool_call_id":"abcDEF123","content":"ok"}])");
  RenderOptions o = opts();
  // Qwen serialises arguments with tojson: a string would be double-encoded unless adapted.
  const auto qwen = ChatTemplate::create(testing::template_source("Qwen-Qwen2.5-7B-Instruct"));
  EXPECT_NE(qwen->render(messages, o).find(R"("arguments": "{\"q\": \"cats\"}")"), std::string::npos);
  o.adapt_tool_call_arguments = true;
  EXPECT_NE(qwen->render(messages, o).find(R"({"name": "search", "arguments": {"q": "cats"}})"),
            std::string::npos);
  // Functionary concatenates arguments: an object is turned into its JSON text.
  const json object_args = conv(
      R"([{"role":"user","content":"Find cats"},{"role":"assistant","content":null,)"
      R"("tool_calls":[{"id":"1","type":"function","function":{"name":"search","arguments":{"q":"cats"}}}]}])");
  const auto functionary = ChatTemplate::create(testing::template_source("meetkai-functionary-medium-v3.2"));
  o.adapt_tool_call_arguments = false;
  EXPECT_THROW(functionary->render(object_args, o), Error);
  o.adapt_tool_call_arguments = true;
  EXPECT_NE(functionary->render(object_args, o).find(">>>search\n{\"q\": \"cats\"}<|eot_id|>"),
            std::string::npos);
}

}  // namespace
}  // namespace a3s::power::chat

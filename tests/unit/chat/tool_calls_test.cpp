// Tool-call syntaxes: detection from the real templates, parsing of whole replies, and streaming
// (every split of a reply gives what parsing it whole gives).
#include "chat/tool_calls.h"

#include "chat/jinja_chat_template.h"
#include "chat/messages.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace a3s::power::chat {
namespace {

std::string read_template(const std::string& name) {
  std::ifstream in(std::string(A3S_TESTDATA_DIR) + "/chat-templates/" + name + ".jinja");
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ToolCallSyntax, DetectedFromTheRealTemplates) {
  const std::pair<const char*, ToolCallSyntax> cases[] = {
      {"Qwen-Qwen2.5-7B-Instruct", ToolCallSyntax::kHermes},
      {"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", ToolCallSyntax::kHermes},
      {"Qwen-QwQ-32B", ToolCallSyntax::kHermes},
      {"ibm-granite-granite-4.1", ToolCallSyntax::kHermes},
      {"meta-llama-Llama-3.1-8B-Instruct", ToolCallSyntax::kLlama3},
      {"meta-llama-Llama-3.2-3B-Instruct", ToolCallSyntax::kLlama3},
      {"mistralai-Mistral-Nemo-Instruct-2407", ToolCallSyntax::kMistral},
      {"meetkai-functionary-medium-v3.2", ToolCallSyntax::kFunctionary},
      {"CohereForAI-c4ai-command-r7b-12-2024-tool_use", ToolCallSyntax::kCommandR},
      {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", ToolCallSyntax::kDeepseekR1},
      {"deepseek-ai-DeepSeek-V3.2", ToolCallSyntax::kDeepseekDsml},
      {"openai-gpt-oss-120b", ToolCallSyntax::kGptOss},
      {"google-gemma-2-2b-it", ToolCallSyntax::kNone},
      {"microsoft-Phi-3.5-mini-instruct", ToolCallSyntax::kNone},
  };
  for (const auto& [name, syntax] : cases) {
    EXPECT_EQ(tool_call_syntax_name(tool_call_syntax_of(read_template(name))), std::string(tool_call_syntax_name(syntax)))
        << name;
  }
  EXPECT_EQ(tool_call_syntax_of(""), ToolCallSyntax::kNone);
}

// Parses `reply` whole, then streamed in pieces of every size from 1 to 7 bytes, and checks that
// the streamed results add up to the whole one.
ParsedReply parse_checked(std::string_view reply, ToolCallSyntax syntax) {
  ParsedReply whole = parse_tool_calls(reply, syntax);
  for (size_t step = 1; step <= 7; ++step) {
    ToolCallStream stream(syntax);
    ParsedReply sum;
    auto add = [&](ParsedReply p) {
      sum.content += p.content;
      sum.reasoning += p.reasoning;
      for (auto& c : p.calls) sum.calls.push_back(std::move(c));
    };
    for (size_t i = 0; i < reply.size(); i += step) add(stream.push(reply.substr(i, step)));
    add(stream.finish());
    EXPECT_EQ(sum.content, whole.content) << "step " << step;
    EXPECT_EQ(sum.reasoning, whole.reasoning) << "step " << step;
    EXPECT_EQ(sum.calls.size(), whole.calls.size()) << "step " << step;
    for (size_t i = 0; i < std::min(sum.calls.size(), whole.calls.size()); ++i) {
      EXPECT_EQ(sum.calls[i].name, whole.calls[i].name);
      EXPECT_EQ(sum.calls[i].arguments, whole.calls[i].arguments);
      EXPECT_EQ(sum.calls[i].id, whole.calls[i].id);
    }
  }
  return whole;
}

TEST(ToolCalls, Hermes) {
  auto r = parse_checked(
      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
      ToolCallSyntax::kHermes);
  EXPECT_EQ(r.content, "Let me check.");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Paris\"}");
  EXPECT_EQ(r.calls[1].name, "get_time");
  EXPECT_EQ(r.calls[1].arguments, "{}");
  EXPECT_TRUE(r.calls[0].id.empty());
}

TEST(ToolCalls, HermesUnclosedAtTheEndIsStillACall) {
  auto r = parse_checked("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2]}}\n", ToolCallSyntax::kHermes);
  EXPECT_EQ(r.content, "");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].arguments, "{\"a\": [1, 2]}");
}

TEST(ToolCalls, HermesArgumentsAsAStringOfJson) {
  auto r = parse_checked("<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"x\\\": 1}\"}</tool_call>",
                         ToolCallSyntax::kHermes);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].arguments, "{\"x\": 1}");
}

TEST(ToolCalls, ArgumentsKeepTheModelsOwnWriting) {
  // A number no double holds exactly stays as written (re-serialised it would be 1.0000000000000001e+23).
  auto r = parse_checked("<tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 100000000000000000000001, \"x\": 0.1}}</tool_call>",
                         ToolCallSyntax::kHermes);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].arguments, "{\"n\": 100000000000000000000001, \"x\": 0.1}");
  auto m = parse_checked("[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {\"n\": 1.00000000000000000001e300}}, {\"arguments\": {\"k\":[ 1 ]}, \"name\": \"b\"}]",
                         ToolCallSyntax::kMistral);
  ASSERT_EQ(m.calls.size(), 2u);
  EXPECT_EQ(m.calls[0].arguments, "{\"n\": 1.00000000000000000001e300}");
  EXPECT_EQ(m.calls[1].arguments, "{\"k\":[ 1 ]}");
}

TEST(ToolCalls, MalformedCallsStayContent) {
  for (const char* reply : {"<tool_call>{\"name\": 3}</tool_call>", "<tool_call>not json</tool_call> after",
                            "<tool_call>{\"arguments\": {}}</tool_call>", "<tool_call>{\"name\": \"f\", \"arguments\": 7}"}) {
    auto r = parse_checked(reply, ToolCallSyntax::kHermes);
    EXPECT_TRUE(r.calls.empty()) << reply;
    EXPECT_EQ(r.content, reply) << reply;
  }
}

TEST(ToolCalls, PlainReplyIsContentWithEverySyntax) {
  const std::string reply = "The weather in Paris is mild; {braces} and <tags> stay.\n";
  for (auto s : {ToolCallSyntax::kNone, ToolCallSyntax::kHermes, ToolCallSyntax::kLlama3, ToolCallSyntax::kMistral,
                 ToolCallSyntax::kCommandR, ToolCallSyntax::kDeepseekR1, ToolCallSyntax::kDeepseekDsml,
                 ToolCallSyntax::kGptOss}) {
    auto r = parse_checked(reply, s);
    EXPECT_EQ(r.content, reply) << tool_call_syntax_name(s);
    EXPECT_TRUE(r.calls.empty());
  }
}

TEST(ToolCalls, PartialMarkerIsHeldThenReleased) {
  ToolCallStream s(ToolCallSyntax::kHermes);
  EXPECT_EQ(s.push("Hi <tool").content, "Hi");
  auto p = s.push("box>");
  EXPECT_EQ(p.content, " <toolbox>");
}

TEST(ToolCalls, Llama3Json) {
  auto r = parse_checked("{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", ToolCallSyntax::kLlama3);
  EXPECT_EQ(r.content, "");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Paris\"}");

  auto two = parse_checked("<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"arguments\": {\"k\": true}}",
                           ToolCallSyntax::kLlama3);
  ASSERT_EQ(two.calls.size(), 2u);
  EXPECT_EQ(two.calls[1].name, "b");
  EXPECT_EQ(two.calls[1].arguments, "{\"k\": true}");

  // A JSON answer that is not a call is content, whole.
  auto json_answer = parse_checked("{\"answer\": 42}", ToolCallSyntax::kLlama3);
  EXPECT_TRUE(json_answer.calls.empty());
  EXPECT_EQ(json_answer.content, "{\"answer\": 42}");
}

TEST(ToolCalls, MistralArrayAndArgsForms) {
  auto r = parse_checked(
      "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"abcdef123\"}]",
      ToolCallSyntax::kMistral);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].id, "abcdef123");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Paris\"}");

  auto v11 = parse_checked("Sure.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Oslo\"}[TOOL_CALLS]now[ARGS]{}",
                           ToolCallSyntax::kMistral);
  EXPECT_EQ(v11.content, "Sure.");
  ASSERT_EQ(v11.calls.size(), 2u);
  EXPECT_EQ(v11.calls[0].name, "get_weather");
  EXPECT_EQ(v11.calls[1].name, "now");
}

TEST(ToolCalls, Functionary) {
  auto r = parse_checked("all\nChecking now.>>>get_weather\n{\"city\": \"Paris\"}>>>get_time\n{}", ToolCallSyntax::kFunctionary);
  EXPECT_EQ(r.content, "Checking now.");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[1].arguments, "{}");
  auto text = parse_checked("all\nJust text.", ToolCallSyntax::kFunctionary);
  EXPECT_EQ(text.content, "Just text.");
  EXPECT_TRUE(text.calls.empty());
}

TEST(ToolCalls, CommandR) {
  auto r = parse_checked(
      "<|START_THINKING|>I need the weather.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", "
      "\"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n]<|END_ACTION|>",
      ToolCallSyntax::kCommandR);
  EXPECT_EQ(r.reasoning, "I need the weather.");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].id, "0");
  EXPECT_EQ(r.calls[0].name, "get_weather");
  auto answer = parse_checked("<|START_RESPONSE|>It is sunny.<|END_RESPONSE|>", ToolCallSyntax::kCommandR);
  EXPECT_EQ(answer.content, "It is sunny.");
}

TEST(ToolCalls, DeepseekR1) {
  auto r = parse_checked(
      "Calling.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": "
      "\"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```"
      "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
      ToolCallSyntax::kDeepseekR1);
  EXPECT_EQ(r.content, "Calling.");
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Paris\"}");
  EXPECT_EQ(r.calls[1].name, "get_time");
}

TEST(ToolCalls, DeepseekDsml) {
  auto r = parse_checked(
      "\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" "
      "string=\"true\">Paris</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n"
      "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
      ToolCallSyntax::kDeepseekDsml);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\":\"Paris\",\"days\":3}");
}

TEST(ToolCalls, GptOssHarmony) {
  auto r = parse_checked(
      "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
      "to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
      ToolCallSyntax::kGptOss);
  EXPECT_EQ(r.reasoning, "Need weather.");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Paris\"}");
  auto answer = parse_checked("<|channel|>final<|message|>Sunny.", ToolCallSyntax::kGptOss);
  EXPECT_EQ(answer.content, "Sunny.");
  // The template's own form: the recipient before the channel.
  auto alt = parse_checked(" to=functions.f<|channel|>commentary json<|message|>{}<|call|>", ToolCallSyntax::kGptOss);
  ASSERT_EQ(alt.calls.size(), 1u);
  EXPECT_EQ(alt.calls[0].name, "f");
}

}  // namespace
}  // namespace a3s::power::chat

namespace a3s::power::chat {
namespace {

// The interpreter finds how each real template prints tool-call arguments, and the server's
// conversion gives every template the form it prints: API clients send arguments as JSON text.
TEST(ToolCallArguments, EachTemplatesFormIsFoundByAProbe) {
  const std::pair<const char*, ArgumentsStyle> cases[] = {
      {"Qwen-Qwen2.5-7B-Instruct", ArgumentsStyle::kObject},
      {"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", ArgumentsStyle::kObject},
      {"meta-llama-Llama-3.1-8B-Instruct", ArgumentsStyle::kObject},
      {"mistralai-Mistral-Nemo-Instruct-2407", ArgumentsStyle::kObject},
      {"meetkai-functionary-medium-v3.2", ArgumentsStyle::kString},
      {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", ArgumentsStyle::kString},
  };
  for (const auto& [name, style] : cases) {
    const auto t = make_jinja_chat_template(read_template(name));
    EXPECT_EQ(static_cast<int>(t->tool_call_arguments()), static_cast<int>(style)) << name;
  }
}

TEST(ToolCallArguments, AdaptedArgumentsArePrintedOnceNotAsAnEscapedString) {
  const auto t = make_jinja_chat_template(read_template("Qwen-Qwen2.5-7B-Instruct"));
  const Messages m = parse_messages(
      nlohmann::json::parse(R"([{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":)"
                            R"([{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]}])"),
      MessagePolicy::kApi);
  RenderOptions o;
  o.add_generation_prompt = false;
  const std::string as_given = t->render(m, o);
  EXPECT_NE(as_given.find(R"("arguments": "{\"city\": \"Paris\"}")"), std::string::npos) << as_given;
  o.adapt_tool_call_arguments = true;
  const std::string adapted = t->render(m, o);
  EXPECT_NE(adapted.find(R"("arguments": {"city": "Paris"})"), std::string::npos) << adapted;
}

}  // namespace
}  // namespace a3s::power::chat

namespace a3s::power::chat {
namespace {

// gpt-oss and QwQ call string methods on an assistant's content: a turn that only calls tools (content
// null, as OpenAI clients send it) renders with empty content instead of failing.
TEST(ToolCallHistory, ATurnWithOnlyCallsRendersOnTemplatesThatNeedContent) {
  const Messages m = parse_messages(
      nlohmann::json::parse(R"([{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":)"
                            R"([{"id":"abcdefghi","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},)"
                            R"({"role":"tool","tool_call_id":"abcdefghi","content":"sunny"}])"),
      MessagePolicy::kApi);
  RenderOptions o;
  o.adapt_tool_call_arguments = true;
  o.tools = nlohmann::ordered_json::parse(
      R"([{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}])");
  for (const char* name : {"openai-gpt-oss-120b", "Qwen-QwQ-32B", "Qwen-Qwen2.5-7B-Instruct", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",
                           "meetkai-functionary-medium-v3.2", "meta-llama-Llama-3.1-8B-Instruct", "mistralai-Mistral-Nemo-Instruct-2407"}) {
    const auto t = make_jinja_chat_template(read_template(name));
    std::string out;
    EXPECT_NO_THROW(out = t->render(m, o)) << name;
    EXPECT_NE(out.find("Paris"), std::string::npos) << name << ": " << out;
  }
}

}  // namespace
}  // namespace a3s::power::chat

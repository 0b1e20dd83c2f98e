// End-to-end: a reasoning model's thinking goes to reasoning_content. stories260K with a template
// whose generation prompt opens a "<think>" block (as DeepSeek R1's does) and which strips thinking
// from the history: the greedy reply — which never closes the block — is all thinking, equal to the
// text completion of the rendered prompt (trimmed), in a body and reassembled from a stream; the
// model's own template (no reasoning markup) leaves the same kind of reply in content.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gguf_builder.h"
#include "support/http_client.h"
#include "support/server_process.h"
#include "support/sse_chunks.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace a3s::power::testing {
namespace reasoning_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;

const char* kTemplate =
    "{% for m in messages %}{% if m.role == 'assistant' %}{{ m.content.split('</think>')[-1] }}"
    "{% else %}{{ m.content }}{% endif %}{% endfor %}{% if add_generation_prompt %}<think>\n{% endif %}";

json post(const ServerProcess& s, const std::string& route, const json& body) {
  const HttpResult r = http("POST", s.url(route), body.dump());
  EXPECT_EQ(r.status, 200) << r.body;
  return json::parse(r.body, nullptr, false);
}

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \n\r\t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \n\r\t");
  return s.substr(b, e - b + 1);
}

TEST(ReasoningE2E, AnOpenThinkBlockGoesToReasoningContent) {
  TempDir dir;
  const std::string model = dir.path() + "/stories-think.gguf";
  write_model_copy(stories_model(), {{"tokenizer.chat_template", string_value(kTemplate)}}, {}, {}, model);
  ServerProcess s({"--model", "m=" + model});
  ASSERT_TRUE(s.ready()) << s.log();

  const json chat = {{"model", "m"},
                     {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
                     {"temperature", 0},
                     {"max_tokens", 16}};
  const json j = post(s, "/v1/chat/completions", chat);
  const std::string expected =
      trimmed(post(s, "/v1/completions", {{"model", "m"}, {"prompt", "Once upon a time<think>\n"}, {"temperature", 0},
                                           {"max_tokens", 16}})["choices"][0]["text"]);
  ASSERT_FALSE(expected.empty());
  const json& message = j["choices"][0]["message"];
  EXPECT_EQ(message["reasoning_content"], expected) << j;
  EXPECT_EQ(message["content"], "");

  json streamed = chat;
  streamed["stream"] = true;
  const HttpResult r = http("POST", s.url("/v1/chat/completions"), streamed.dump());
  ASSERT_EQ(r.status, 200);
  std::string reasoning, content;
  for (const json& c : sse_json_chunks(r.body)) {
    if (c["choices"].empty()) continue;
    const json& d = c["choices"][0]["delta"];
    reasoning += d.value("reasoning_content", "");
    content += d.value("content", "");
  }
  EXPECT_EQ(reasoning, expected);
  EXPECT_EQ(content, "");

  // A history with thinking in an assistant turn renders without it.
  json history = chat;
  history["messages"] = {{{"role", "user"}, {"content", "Once upon"}},
                         {{"role", "assistant"}, {"content", "<think>hidden</think> a time"}},
                         {{"role", "user"}, {"content", " there"}}};
  const std::string after = trimmed(post(s, "/v1/completions", {{"model", "m"},
                                                                {"prompt", "Once upon a time there<think>\n"},
                                                                {"temperature", 0},
                                                                {"max_tokens", 16}})["choices"][0]["text"]);
  EXPECT_EQ(post(s, "/v1/chat/completions", history)["choices"][0]["message"]["reasoning_content"], after);
}

TEST(ReasoningE2E, ATemplateWithoutReasoningMarkupKeepsEverythingInContent) {
  ServerProcess s({"--model", "m=" + stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  const json j = post(s, "/v1/chat/completions",
                      {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
                       {"temperature", 0}, {"max_tokens", 8}});
  EXPECT_FALSE(j["choices"][0]["message"].contains("reasoning_content")) << j;
  EXPECT_FALSE(j["choices"][0]["message"]["content"].get<std::string>().empty());
}

}  // namespace reasoning_e2e
}  // namespace a3s::power::testing

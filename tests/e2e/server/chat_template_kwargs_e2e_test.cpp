// End-to-end: chat_template_kwargs, reasoning_effort and chat_template_file through the real server
// binary and the real stories260K model.
// With a template of no built-in family (run by the Jinja interpreter) the variables reach the
// template: the answer is exactly a text completion of the prompt the template renders with them.
// A built-in family (stories260K's own plain template) refuses a non-empty object by name; an
// empty one is accepted; a kwarg that would set a server variable, or a non-object, is a 400.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gguf_builder.h"
#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace a3s::power::testing {
namespace chat_template_kwargs_e2e {  // named: the suite's files are built as one unit

using nlohmann::json;

// Reads enable_thinking as Qwen 3's template does (absent → thinking on).
const char* kTemplate =
    "{% for m in messages %}{{ m.content }}{% endfor %}"
    "{% if enable_thinking is defined and not enable_thinking %} The end.{% else %} Then{% endif %}";

json chat(json kwargs) {
  json j = {{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "Once upon a time"}}}},
            {"temperature", 0},
            {"max_tokens", 12}};
  if (!kwargs.is_null()) j["chat_template_kwargs"] = std::move(kwargs);
  return j;
}

json post(const ServerProcess& s, const std::string& route, const json& body, int* status) {
  HttpResult r = http("POST", s.url(route), body.dump());
  *status = r.status;
  return json::parse(r.body, nullptr, false);
}

std::string completion_of(const ServerProcess& s, const std::string& prompt) {
  int status = 0;
  json r = post(s, "/v1/completions", {{"model", "m"}, {"prompt", prompt}, {"temperature", 0}, {"max_tokens", 12}},
                &status);
  EXPECT_EQ(status, 200) << r;
  return r["choices"][0]["text"].get<std::string>();
}

TEST(ChatTemplateKwargsE2E, VariablesReachAnInterpreterRunTemplate) {
  TempDir dir;
  const std::string model = dir.path() + "/stories-kwargs.gguf";
  write_model_copy(stories_model(), {{"tokenizer.chat_template", string_value(kTemplate)}}, {}, {}, model);
  ServerProcess s({"--model", "m=" + model});
  ASSERT_TRUE(s.ready()) << s.log();

  int status = 0;
  json off = post(s, "/v1/chat/completions", chat({{"enable_thinking", false}}), &status);
  ASSERT_EQ(status, 200) << off;
  json on = post(s, "/v1/chat/completions", chat(nullptr), &status);
  ASSERT_EQ(status, 200) << on;
  EXPECT_EQ(off["choices"][0]["message"]["content"], completion_of(s, "Once upon a time The end."));
  EXPECT_EQ(on["choices"][0]["message"]["content"], completion_of(s, "Once upon a time Then"));
  EXPECT_NE(off["usage"]["prompt_tokens"], on["usage"]["prompt_tokens"]);

  json reserved = post(s, "/v1/chat/completions", chat({{"messages", json::array()}}), &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reserved["error"]["param"], "chat_template_kwargs") << reserved;
  json not_object = post(s, "/v1/chat/completions", chat(json::array({1})), &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(not_object["error"]["param"], "chat_template_kwargs") << not_object;
  json on_text = post(s, "/v1/completions", {{"model", "m"}, {"prompt", "x"}, {"chat_template_kwargs", json::object()}},
                      &status);
  EXPECT_EQ(status, 400) << "text completions have no template";
  EXPECT_EQ(on_text["error"]["code"], "unsupported_field") << on_text;
}

TEST(ChatTemplateKwargsE2E, ReasoningEffortReachesATemplateThatReadsIt) {
  TempDir dir;
  const std::string model = dir.path() + "/stories-effort.gguf";
  const char* effort_template =
      "{% for m in messages %}{{ m.content }}{% endfor %}"
      "{% if reasoning_effort is defined %} Then {{ reasoning_effort }}{% else %} The end.{% endif %}";
  write_model_copy(stories_model(), {{"tokenizer.chat_template", string_value(effort_template)}}, {}, {}, model);
  ServerProcess s({"--model", "m=" + model});
  ASSERT_TRUE(s.ready()) << s.log();
  int status = 0;
  json body = chat(nullptr);
  body["reasoning_effort"] = "high";
  json high = post(s, "/v1/chat/completions", body, &status);
  ASSERT_EQ(status, 200) << high;
  EXPECT_EQ(high["choices"][0]["message"]["content"], completion_of(s, "Once upon a time Then high"));
  body.erase("reasoning_effort");
  json none = post(s, "/v1/chat/completions", body, &status);
  EXPECT_EQ(none["choices"][0]["message"]["content"], completion_of(s, "Once upon a time The end."));
  body["reasoning_effort"] = "extreme";
  json bad = post(s, "/v1/chat/completions", body, &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(bad["error"]["param"], "reasoning_effort") << bad;
}

TEST(ChatTemplateFileE2E, AConfiguredTemplateReplacesTheGgufsPerModelOrForAll) {
  TempDir dir;
  // stories260K's own template is the built-in plain family; these files replace it.
  const std::string everyone = dir.write("everyone.jinja", "{% for m in messages %}{{ m.content }}{% endfor %} Then");
  const std::string own = dir.write("own.jinja", "{% for m in messages %}{{ m.content }}{% endfor %} The end.");
  const std::string cfg = dir.write("power.hcl", "model \"own\" {\n  path = \"" + stories_model() +
                                                     "\"\n  chat_template_file = \"" + own + "\"\n}\n"
                                                     "model \"m\" {\n  path = \"" + stories_model() + "\"\n}\n");
  ServerProcess s({"--config", cfg, "--chat-template-file", everyone});
  ASSERT_TRUE(s.ready()) << s.log();
  int status = 0;
  json body = chat(nullptr);
  const json served = post(s, "/v1/chat/completions", body, &status);
  ASSERT_EQ(status, 200) << served;
  EXPECT_EQ(served["choices"][0]["message"]["content"], completion_of(s, "Once upon a time Then"));
  body["model"] = "own";
  const json own_served = post(s, "/v1/chat/completions", body, &status);
  ASSERT_EQ(status, 200) << own_served;
  EXPECT_EQ(own_served["choices"][0]["message"]["content"], completion_of(s, "Once upon a time The end."));
  // An interpreter-run template now: chat_template_kwargs are accepted.
  body["chat_template_kwargs"] = {{"unused", true}};
  post(s, "/v1/chat/completions", body, &status);
  EXPECT_EQ(status, 200);
  // /health shows which template the model is served with.
  const json health = json::parse(http("GET", s.url("/health")).body);
  EXPECT_EQ(health["models"][0]["chat_template"], "jinja") << health.dump();
}

TEST(ChatTemplateFileE2E, AnUnreadableTemplateFileStopsTheServerAtStartup) {
  TempDir dir;
  const ProcessResult r = run_process(bin_path("a3s-power"),
                                      {"serve", "--port", "0", "--model", stories_model(), "--chat-template-file",
                                       dir.path() + "/missing.jinja"},
                                      RunOptions{.input = {}, .env = {}, .private_home = true, .merge_stderr = true,
                                                 .drop_stderr = false, .timeout = std::chrono::seconds(60)});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("chat_template_file"), std::string::npos) << r.out;
}

TEST(ChatTemplateKwargsE2E, ABuiltInFamilyRefusesThemByName) {
  ServerProcess s({"--model", "m=" + stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  int status = 0;
  json refused = post(s, "/v1/chat/completions", chat({{"enable_thinking", false}}), &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(refused["error"]["code"], "unsupported_field") << refused;
  EXPECT_EQ(refused["error"]["param"], "chat_template_kwargs");
  json empty = post(s, "/v1/chat/completions", chat(json::object()), &status);
  EXPECT_EQ(status, 200) << empty;
  json effort = chat(nullptr);
  effort["reasoning_effort"] = "low";
  json no_effort = post(s, "/v1/chat/completions", effort, &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(no_effort["error"]["code"], "unsupported_field") << no_effort;
  EXPECT_EQ(no_effort["error"]["param"], "reasoning_effort");
}

}  // namespace chat_template_kwargs_e2e
}  // namespace a3s::power::testing

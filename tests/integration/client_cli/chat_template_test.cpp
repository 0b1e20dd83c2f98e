// `run` and `chat` render the model's own chat template: stories260K with a real Qwen2.5 template
// added must produce exactly what a raw completion of the Jinja2-rendered prompt produces (also for a
// template of no built-in family, through the Jinja interpreter), and a template that rejects the
// conversation or does not parse gives a one-line error.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_process.h"
#include "support/gguf_builder.h"

namespace a3s::power::client_cli {
namespace {

// A copy of `src` with tokenizer.chat_template = `jinja` added.
void write_gguf_with_template(const std::string& src, const std::string& dst, const std::string& jinja) {
  testing::write_model_copy(src, {{"tokenizer.chat_template", testing::string_value(jinja)}}, {}, {}, dst);
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string template_source(const std::string& name) {
  return read_text(testdata_dir() + "/chat-templates/" + name + ".jinja");
}

// The prompt Python Jinja2 renders for one user message `text`, from the shared expected output
// of the template's "user_only" case.
std::string rendered_user_only(const std::string& name, const std::string& text) {
  auto j = nlohmann::json::parse(read_text(testdata_dir() + "/chat-templates/" + name + ".expected.json"));
  const std::string original = j["cases"]["user_only"]["messages"][0]["content"];
  std::string out = j["results"]["user_only"]["output"];
  out.replace(out.find(original), original.size(), text);
  return out;
}

// stories260K with the shared template `name` added: `run` and `chat` (through a server) answer
// "Once upon a time" with what a raw completion of Python Jinja2's rendering of it gives. stories260K
// has no markup tokens, so the rendered text tokenizes the same with or without special-token
// parsing: the raw completion is the reference. Returns that output.
std::string expect_run_and_chat_follow_the_template(const std::string& name, const std::string& prompt_part) {
  TempDir dir;
  const std::string model = dir.file("stories-with-template.gguf");
  write_gguf_with_template(stories_model(), model, template_source(name));
  const std::string prompt = rendered_user_only(name, "Once upon a time");
  EXPECT_NE(prompt.find(prompt_part), std::string::npos);

  CliResult raw = run_cli(
      {"generate", "--model", model, "--prompt", prompt, "--temperature", "0", "-n", "16", "-t", "1"});
  EXPECT_EQ(raw.status, 0) << raw.err;
  CliResult run = run_cli({"run", model, "Once upon a time", "--temperature", "0", "-n", "16", "-t", "1"});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, raw.out);

  ServerProcess server({"--model", "templated=" + model});
  EXPECT_TRUE(server.ready()) << server.log();
  CliResult chat = run_cli(
      {"chat", "templated", "Once upon a time", "--url", server.url(), "--temperature", "0", "-n", "16"});
  EXPECT_EQ(chat.status, 0) << chat.err;
  EXPECT_EQ(chat.out, raw.out);
  return raw.out;
}

TEST(CliChatTemplate, RunAndChatRenderTheModelsTemplate) {
  const std::string out = expect_run_and_chat_follow_the_template("Qwen-Qwen2.5-7B-Instruct", "<|im_start|>assistant\n");
  EXPECT_NE(out.rfind(", there was a little girl", 0), 0u) << "not the plain format";
}

// A template that is none of the built-in families (QwQ's) is run by the Jinja interpreter.
TEST(CliChatTemplate, ATemplateOfNoFamilyRunsInTheInterpreter) {
  expect_run_and_chat_follow_the_template("Qwen-QwQ-32B", "<|im_start|>assistant\n<think>\n");
}

TEST(CliChatTemplate, TemplateRejectingTheConversationIsAOneLineError) {
  TempDir dir;
  const std::string model = dir.file("stories-gemma2.gguf");
  write_gguf_with_template(stories_model(), model, template_source("google-gemma-2-2b-it"));
  CliResult r = run_cli({"run", model, "Once upon a time", "--system", "Be nice.", "-t", "1"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "error: TemplateError: System role not supported\n");
  EXPECT_EQ(r.out, "");
  // Without a system message the same model answers.
  CliResult ok = run_cli({"run", model, "Once upon a time", "--temperature", "0", "-n", "4", "-t", "1"});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(CliChatTemplate, AMalformedTemplateIsRefusedInOneLine) {
  TempDir dir;
  const std::string model = dir.file("stories-odd.gguf");
  write_gguf_with_template(stories_model(), model, "{{ messages | length }} odd {% if template");
  CliResult r = run_cli({"run", model, "hi", "-t", "1"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("TemplateSyntaxError"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace a3s::power::client_cli

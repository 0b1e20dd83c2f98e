// `run` and `chat` render the model's own chat template: stories260K with a real Qwen2.5 template
// added must produce exactly what a raw completion of the Jinja2-rendered prompt produces, and a
// template that rejects the conversation gives a one-line error.
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

TEST(CliChatTemplate, RunAndChatRenderTheModelsTemplate) {
  TempDir dir;
  const std::string model = dir.file("stories-qwen25.gguf");
  write_gguf_with_template(stories_model(), model, template_source("Qwen-Qwen2.5-7B-Instruct"));
  const std::string prompt = rendered_user_only("Qwen-Qwen2.5-7B-Instruct", "Once upon a time");
  ASSERT_NE(prompt.find("<|im_start|>assistant\n"), std::string::npos);

  // stories260K has no ChatML tokens, so the rendered text tokenizes the same with or without
  // special-token parsing: a raw completion of it is the reference.
  CliResult raw = run_cli(
      {"generate", "--model", model, "--prompt", prompt, "--temperature", "0", "-n", "16", "-t", "1"});
  ASSERT_EQ(raw.status, 0) << raw.err;

  CliResult run = run_cli({"run", model, "Once upon a time", "--temperature", "0", "-n", "16", "-t", "1"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, raw.out);
  EXPECT_NE(run.out.rfind(", there was a little girl", 0), 0u) << "not the plain format";

  ServerProcess server({"--model", "qwen25=" + model});
  ASSERT_TRUE(server.ready()) << server.log();
  CliResult chat = run_cli(
      {"chat", "qwen25", "Once upon a time", "--url", server.url(), "--temperature", "0", "-n", "16"});
  ASSERT_EQ(chat.status, 0) << chat.err;
  EXPECT_EQ(chat.out, raw.out);
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

TEST(CliChatTemplate, UnrecognisedTemplateIsRefused) {
  TempDir dir;
  const std::string model = dir.file("stories-odd.gguf");
  write_gguf_with_template(stories_model(), model, "{{ messages | length }} odd template");
  CliResult r = run_cli({"run", model, "hi", "-t", "1"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace a3s::power::client_cli

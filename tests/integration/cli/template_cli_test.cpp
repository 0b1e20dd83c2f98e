// `a3s-power template render` prints what the Jinja interpreter renders for a shared template and
// case, byte for byte; template errors and bad input are one-line errors with status 2.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "support/temp_dir.h"

namespace a3s::power {
namespace {

std::string template_cli_path(const std::string& name, const char* ext) {
  return testing::testdata_dir() + "/chat-templates/" + name + ext;
}

nlohmann::ordered_json template_cli_expected(const std::string& name) {
  std::ifstream in(template_cli_path(name, ".expected.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::ordered_json::parse(ss.str());
}

void template_cli_write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(TemplateCli, RendersSharedTemplateCasesByteForByte) {
  testing::TempDir dir("a3s-template-cli");
  for (const std::string name : {"Qwen-Qwen2.5-7B-Instruct", "openai-gpt-oss-120b"}) {
    const auto data = template_cli_expected(name);
    for (const std::string case_name : {"tools", "no_gen_prompt"}) {
      const auto& input = data["cases"][case_name];
      template_cli_write(dir.file("messages.json"), input["messages"].dump());
      std::vector<std::string> args = {"template", "render", "--template", template_cli_path(name, ".jinja"),
                                       "--messages", dir.file("messages.json"), "--bos-token", "<s>",
                                       "--eos-token", "</s>", "--date", "2026-07-26"};
      if (input.contains("tools")) {
        template_cli_write(dir.file("tools.json"), input["tools"].dump());
        args.push_back("--tools");
        args.push_back(dir.file("tools.json"));
      }
      if (!input.value("add_generation_prompt", true)) args.push_back("--no-generation-prompt");
      const CliRun r = run(args);
      ASSERT_EQ(r.status, 0) << name << "/" << case_name << ": " << r.err;
      EXPECT_EQ(r.out, data["results"][case_name]["output"].get<std::string>()) << name << "/" << case_name;
    }
  }
}

TEST(TemplateCli, TemplateErrorsAndBadInputAreOneLineErrors) {
  testing::TempDir dir("a3s-template-cli");
  template_cli_write(dir.file("system.json"), R"([{"role": "system", "content": "x"}])");
  CliRun r = run({"template", "render", "--template", template_cli_path("google-gemma-2-2b-it", ".jinja"), "--messages",
                  dir.file("system.json")});
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("TemplateError: System role not supported"), std::string::npos) << r.err;

  template_cli_write(dir.file("bad.jinja"), "{% if x %}");
  r = run({"template", "render", "--template", dir.file("bad.jinja"), "--messages", dir.file("system.json")});
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("TemplateSyntaxError: unclosed block: missing 'endif' at 1:4"), std::string::npos) << r.err;

  template_cli_write(dir.file("notjson.json"), "[");
  r = run({"template", "render", "--template", dir.file("bad.jinja"), "--messages", dir.file("notjson.json")});
  expect_one_line_error(r, 2);

  r = run({"template", "render", "--messages", dir.file("system.json")});
  expect_one_line_error(r, 2);
  r = run({"template", "render", "--model", kStories, "--messages", dir.file("system.json")});
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("has no tokenizer.chat_template"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace a3s::power

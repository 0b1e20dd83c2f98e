#include "chat_test_data.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace a3s::power::chat::testing {

std::string templates_dir() {
  return std::string(A3S_TESTDATA_DIR) + "/chat-templates";
}

std::vector<std::string> template_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(templates_dir(), ec)) {
    if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

const std::map<std::string, std::pair<std::string, std::string>>& family_templates() {
  static const std::map<std::string, std::pair<std::string, std::string>> kTemplates = {
      {"CohereForAI-c4ai-command-r7b-12-2024-tool_use", {"command-r", "command-r7b"}},
      {"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", {"chatml", "hermes3-tool-use"}},
      {"Qwen-Qwen2.5-7B-Instruct", {"chatml", "qwen2.5"}},
      {"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", {"deepseek", "deepseek-r1"}},
      {"google-gemma-2-2b-it", {"gemma", "gemma2"}},
      {"meetkai-functionary-medium-v3.2", {"functionary", "functionary-v3.2"}},
      {"meta-llama-Llama-3.1-8B-Instruct", {"llama3", "llama3.1"}},
      {"meta-llama-Llama-3.2-3B-Instruct", {"llama3", "llama3.2"}},
      {"microsoft-Phi-3.5-mini-instruct", {"phi3", "phi3.5"}},
      {"mistralai-Mistral-Nemo-Instruct-2407", {"mistral", "mistral-nemo"}},
  };
  return kTemplates;
}

std::vector<std::string> family_template_names() {
  std::vector<std::string> names;
  for (const auto& name : template_names()) {
    if (family_templates().count(name)) names.push_back(name);
  }
  return names;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read test data file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string template_source(const std::string& name) {
  return read_text(templates_dir() + "/" + name + ".jinja");
}

nlohmann::ordered_json read_json(const std::string& path) {
  return nlohmann::ordered_json::parse(read_text(path));
}

void append_cases(std::vector<GoldenCase>& cases);

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  // Called while tests are registered: a missing or unreadable file must not abort the binary (the
  // data-presence tests report it instead).
  try {
    append_cases(cases);
  } catch (const std::exception&) {
  }
  return cases;
}

void append_cases(std::vector<GoldenCase>& cases) {
  for (const auto& name : family_template_names()) {
    const auto expected = read_json(templates_dir() + "/" + name + ".expected.json");
    for (const auto& [case_name, input] : expected["cases"].items()) {
      cases.push_back({name, "shared", case_name, input, expected["results"][case_name]});
    }
  }
  const auto extra = read_json(std::string(A3S_SOURCE_DIR) + "/tests/unit/chat/data/extra_cases.json");
  for (const auto& [name, results] : extra["results"].items()) {
    for (const auto& [case_name, result] : results.items()) {
      cases.push_back({name, "extra", case_name, extra["cases"][case_name], result});
    }
  }
}

RenderOptions options_for(const nlohmann::ordered_json& input) {
  RenderOptions o;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  o.today = "2026-07-26";
  o.add_generation_prompt = input.value("add_generation_prompt", true);
  if (input.contains("tools")) o.tools = input["tools"];
  return o;
}

bool is_tools_case(const GoldenCase& c) {
  if (c.input.contains("tools") && !c.input["tools"].is_null()) return true;
  for (const auto& m : c.input["messages"]) {
    if (m.contains("tool_calls") || m.value("role", "") == "tool") return true;
  }
  return false;
}

}  // namespace a3s::power::chat::testing

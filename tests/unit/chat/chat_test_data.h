// Access to the chat-template test data: the shared templates with their expected renderings
// (A3S_TESTDATA_DIR/chat-templates) and this suite's extra edge cases (data/extra_cases.json,
// rendered by Python Jinja2 with tools/make_extra_cases.py).
#pragma once

#include <nlohmann/json.hpp>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "chat/chat_template.h"

namespace a3s::power::chat::testing {

std::string templates_dir();
std::vector<std::string> template_names();  // "<name>" of every <name>.jinja, sorted
// The shared templates of the families the engine renders (family, variant), by name. Every other
// shared template is refused (unsupported_chat_template) unless a fallback family is configured.
const std::map<std::string, std::pair<std::string, std::string>>& family_templates();
std::vector<std::string> family_template_names();  // the keys of family_templates() found on disk
std::string read_text(const std::string& path);
std::string template_source(const std::string& name);
nlohmann::ordered_json read_json(const std::string& path);

struct GoldenCase {
  std::string template_name;
  std::string suite;  // "shared" or "extra"
  std::string case_name;
  nlohmann::ordered_json input;     // {messages, tools?, add_generation_prompt}
  nlohmann::ordered_json expected;  // {ok, output | error}
};

std::vector<GoldenCase> golden_cases();

// gtest prints parameters with this (instead of their bytes).
inline void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.suite << ":" << c.template_name << "/" << c.case_name;
}

// Options for a case: bos "<s>", eos "</s>", the fixed date 2026-07-26, tools and
// add_generation_prompt from the case.
RenderOptions options_for(const nlohmann::ordered_json& input);

bool is_tools_case(const GoldenCase& c);

}  // namespace a3s::power::chat::testing

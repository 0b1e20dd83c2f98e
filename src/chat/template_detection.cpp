#include "chat/template_detection.h"

#include <initializer_list>

namespace a3s::power::chat {
namespace {

bool has(std::string_view src, std::string_view needle) {
  return src.find(needle) != std::string_view::npos;
}

bool has_all(std::string_view src, std::initializer_list<std::string_view> needles) {
  for (auto n : needles) {
    if (!has(src, n)) return false;
  }
  return true;
}

bool has_any(std::string_view src, std::initializer_list<std::string_view> needles) {
  for (auto n : needles) {
    if (has(src, n)) return true;
  }
  return false;
}

const VariantInfo kVariants[] = {
    {Variant::kPlain, "plain", "plain", false, ArgumentsStyle::kAsGiven, render_plain},
    {Variant::kChatml, "chatml", "chatml", false, ArgumentsStyle::kAsGiven, render_chatml},
    {Variant::kQwen25, "chatml", "qwen2.5", true, ArgumentsStyle::kObject, render_qwen25},
    {Variant::kHermes3ToolUse, "chatml", "hermes3-tool-use", true, ArgumentsStyle::kAsGiven,
     render_hermes3_tool_use},
    {Variant::kLlama2, "llama2", "llama2", false, ArgumentsStyle::kAsGiven, render_llama2},
    {Variant::kLlama30, "llama3", "llama3.0", false, ArgumentsStyle::kAsGiven, render_llama30},
    {Variant::kLlama31, "llama3", "llama3.1", true, ArgumentsStyle::kObject, render_llama31},
    {Variant::kLlama32, "llama3", "llama3.2", true, ArgumentsStyle::kObject, render_llama32},
    {Variant::kMistralNemo, "mistral", "mistral-nemo", true, ArgumentsStyle::kObject, render_mistral_nemo},
    {Variant::kGemma2, "gemma", "gemma2", false, ArgumentsStyle::kAsGiven, render_gemma2},
    {Variant::kPhi3, "phi3", "phi3", false, ArgumentsStyle::kAsGiven, render_phi3},
    {Variant::kPhi35, "phi3", "phi3.5", false, ArgumentsStyle::kAsGiven, render_phi3},
    {Variant::kDeepseekR1, "deepseek", "deepseek-r1", false, ArgumentsStyle::kString, render_deepseek_r1},
    {Variant::kCommandR7b, "command-r", "command-r7b", true, ArgumentsStyle::kObject, render_command_r7b},
    {Variant::kFunctionaryV32, "functionary", "functionary-v3.2", true, ArgumentsStyle::kString,
     render_functionary_v32},
};

// The family's canonical variant (used for a fallback given by family name).
const std::pair<std::string_view, Variant> kCanonical[] = {
    {"plain", Variant::kPlain},          {"chatml", Variant::kChatml},
    {"llama2", Variant::kLlama2},        {"llama3", Variant::kLlama30},
    {"mistral", Variant::kMistralNemo},  {"gemma", Variant::kGemma2},
    {"phi3", Variant::kPhi35},           {"deepseek", Variant::kDeepseekR1},
    {"command-r", Variant::kCommandR7b}, {"functionary", Variant::kFunctionaryV32},
};

// Decodes the escapes of a Jinja string literal body (\n, \t, \\, \', \").
std::string unescape_literal(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

// ChatML templates that insert a default system turn when the conversation has none, e.g.
// {% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nTEXT<|im_end|>\n' }}
std::string chatml_default_system(std::string_view src) {
  if (!has_any(src, {"!= 'system'", "!= \"system\""})) return "";
  for (std::string_view open : {"<|im_start|>system\\n", "<|im_start|>system\n"}) {
    const auto start = src.find(open);
    if (start == std::string_view::npos) continue;
    const auto text_begin = start + open.size();
    const auto end = src.find("<|im_end|>", text_begin);
    if (end == std::string_view::npos) continue;
    const std::string_view text = src.substr(text_begin, end - text_begin);
    // Only a plain literal: no quote (end of the literal), no Jinja expression.
    if (text.empty() || has_any(text, {"'", "\"", "{{", "{%", "+"})) continue;
    return unescape_literal(text);
  }
  return "";
}

}  // namespace

const VariantInfo& variant_info(Variant v) {
  for (const auto& info : kVariants) {
    if (info.id == v) return info;
  }
  return kVariants[0];
}

std::optional<Detection> detect_template(std::string_view src) {
  auto found = [](Variant v, TemplateTraits traits = {}) {
    return std::optional<Detection>(Detection{v, traits});
  };
  // R1 strips the reasoning of earlier turns with split('</think>'); DeepSeek V3.2 (DSML tool calls,
  // a thinking switch) shares the role tokens but not that, and renders differently.
  if (has_all(src, {"<｜User｜>", "<｜Assistant｜>", "split('</think>')"})) return found(Variant::kDeepseekR1);
  if (has_all(src, {"<|START_OF_TURN_TOKEN|>", "<|START_ACTION|>", "tool_call_id_to_int",
                    "format_tool_message"})) {
    return found(Variant::kCommandR7b);
  }
  if (has_all(src, {"<|start_header_id|>", ">>>all", "generate_schema_from_functions"})) {
    return found(Variant::kFunctionaryV32);
  }
  if (has_all(src, {"<|im_start|>", "json_to_python_type", "<tool_call>",
                    "You are a function calling AI model."})) {
    return found(Variant::kHermes3ToolUse);
  }
  if (has_all(src, {"<|im_start|>", "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
                    "<tool_call>", "<tool_response>"}) &&
      !has_any(src, {"reasoning_content", "enable_thinking"})) {
    return found(Variant::kQwen25);
  }
  if (has_all(src, {"<|start_header_id|>", "Cutting Knowledge Date: December 2023"}) &&
      !has(src, "<|image|>")) {
    if (has_all(src, {"builtin_tools", "26 Jul 2024"}) && !has(src, "strftime_now"))
      return found(Variant::kLlama31);
    if (has(src, "strftime_now") && !has(src, "builtin_tools")) return found(Variant::kLlama32);
    return std::nullopt;
  }
  if (has_all(src, {"[INST]", "[AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "\"[INST]\" + ",
                    "Tool call IDs should be alphanumeric strings with length 9!"})) {
    return found(Variant::kMistralNemo);
  }
  if (has_all(src, {"<start_of_turn>", "System role not supported"})) return found(Variant::kGemma2);
  if (has_all(src, {"<|user|>", "<|assistant|>", "<|end|>"}) &&
      !has_any(src, {"bos_token", "<|tool", "<|im_start|>", "<|start_header_id|>"})) {
    TemplateTraits traits;
    const bool phi35 = has_any(src, {"message['role'] == 'system' and message['content']",
                                     "message[\"role\"] == \"system\" and message[\"content\"]"});
    traits.system_requires_content = phi35;
    return found(phi35 ? Variant::kPhi35 : Variant::kPhi3, traits);
  }
  if (has_all(src, {"[INST]", "<<SYS>>"})) return found(Variant::kLlama2);
  if (has_all(src, {"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}) &&
      !has_any(src, {"tools", "tool_calls", ">>>", "Cutting Knowledge Date", "<|image|>"})) {
    return found(Variant::kLlama30);
  }
  if (has_all(src, {"<|im_start|>", "<|im_end|>"}) &&
      !has_any(src, {"<|im_sep|>", "tools", "tool_calls", "<think>", "<tool_call>"})) {
    TemplateTraits traits;
    traits.bos_prefix = has(src, "bos_token");
    traits.default_system = chatml_default_system(src);
    return found(Variant::kChatml, traits);
  }
  return std::nullopt;
}

std::optional<Detection> variant_by_name(std::string_view name) {
  for (const auto& [family, v] : kCanonical) {
    if (family == name) {
      Detection d{v, {}};
      d.traits.system_requires_content = v == Variant::kPhi35;
      return d;
    }
  }
  for (const auto& info : kVariants) {
    if (name == info.name) {
      Detection d{info.id, {}};
      d.traits.system_requires_content = info.id == Variant::kPhi35;
      return d;
    }
  }
  return std::nullopt;
}

std::vector<std::string> known_names() {
  std::vector<std::string> names;
  for (const auto& [family, v] : kCanonical) names.emplace_back(family);
  for (const auto& info : kVariants) {
    bool dup = false;
    for (const auto& n : names) dup = dup || n == info.name;
    if (!dup) names.emplace_back(info.name);
  }
  return names;
}

}  // namespace a3s::power::chat

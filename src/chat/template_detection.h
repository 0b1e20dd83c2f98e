// Recognising a chat template by signature.
//
// No Jinja is interpreted: each reproduced template is identified by distinctive substrings of its
// Jinja source (special tokens, fixed sentences, macro names), checked in a fixed order from the most
// specific to the most generic. The table of signatures is in template_detection.cpp and in
// docs/chat-templates.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/conversation.h"
#include "chat/families/render_context.h"

namespace a3s::power::chat {

enum class Variant {
  kPlain,
  kChatml,
  kQwen25,
  kHermes3ToolUse,
  kLlama2,
  kLlama30,
  kLlama31,
  kLlama32,
  kMistralNemo,
  kGemma2,
  kPhi3,
  kPhi35,
  kDeepseekR1,
  kCommandR7b,
  kFunctionaryV32,
};

struct VariantInfo {
  Variant id;
  const char* family;        // "chatml", "llama3", …
  const char* name;          // "qwen2.5", "llama3.1", …
  bool presents_tools;       // the template shows tool definitions to the model
  ArgumentsStyle arguments;  // how the template consumes tool-call arguments
  std::string (*render)(const RenderContext&);
};

struct Detection {
  Variant variant;
  TemplateTraits traits;
};

const VariantInfo& variant_info(Variant v);

// The variant whose signature the Jinja source carries; nullopt when none does.
std::optional<Detection> detect_template(std::string_view source);

// A family name (its canonical variant) or a variant name; nullopt when unknown.
std::optional<Detection> variant_by_name(std::string_view name);

// Every family and variant name accepted by variant_by_name().
std::vector<std::string> known_names();

}  // namespace a3s::power::chat

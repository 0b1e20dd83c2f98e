// A sandboxed Jinja interpreter for Hugging Face chat templates (the subset of Jinja2 3.1 that
// `transformers.apply_chat_template` templates use, with its environment: trim_blocks,
// lstrip_blocks, loop controls, an immutable sandbox, `tojson` = json.dumps(ensure_ascii=False),
// `raise_exception`, `strftime_now`). The subset and the limits are listed in
// docs/chat-templates.md.
//
// Bounded: output size, total loop iterations, macro call depth and parse nesting are capped;
// exceeding a cap is Error(codes::kResourceExhausted) "TemplateLimitError: …". No file,
// environment or clock access, except strftime_now reading Context::now.
//
// Errors: a malformed template is Error(codes::kUnsupportedChatTemplate) "TemplateSyntaxError: …
// at <line>:<col>"; a template that raises is Error(codes::kInvalidRequest) with what Python prints,
// "<Type>: <message>" (raise_exception(msg) → "TemplateError: <msg>"). Messages never contain
// caller text, except where the template itself puts it into raise_exception's argument.
#pragma once

#include <ctime>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "chat/jinja/value.h"

namespace a3s::power::chat::jinja {

struct Program;

struct Limits {
  std::size_t max_output_bytes = 4u << 20;     // all text produced, captures included
  std::size_t max_loop_iterations = 1u << 20;  // total over the rendering
  int max_call_depth = 64;                     // nested macro calls
};

struct Context {
  std::map<std::string, Value> variables;
  // The time strftime_now formats (UTC broken-down time); nullopt → the current UTC time.
  std::optional<std::tm> now;
};

// Rendered text and the [begin, end) byte spans of it that come from caller values (see value.h for
// the rule); tokenize those spans as plain text.
struct Rendered {
  std::string text;
  Spans caller_spans;
};

class Template {
 public:
  // Throws Error(codes::kUnsupportedChatTemplate) on a syntax error.
  static Template parse(std::string_view source);
  Rendered render(const Context& context, const Limits& limits = {}) const;

 private:
  std::shared_ptr<const Program> program_;
};

// The variables transformers passes: messages and tools (caller values, marked; tools omitted when
// nullptr), add_generation_prompt, bos_token, eos_token.
Context chat_context(const nlohmann::ordered_json& messages, const nlohmann::ordered_json* tools,
                     bool add_generation_prompt, const std::string& bos_token, const std::string& eos_token);

// "YYYY-MM-DD" → a broken-down time at 00:00:00; nullopt when malformed.
std::optional<std::tm> parse_date(std::string_view ymd);

}  // namespace a3s::power::chat::jinja

// Chat templates: OpenAI-style messages → the prompt text the model was trained on.
//
// The template comes from the GGUF key `tokenizer.chat_template` (Jinja source). We recognise the
// common families by signature (ChatML/Qwen, Llama-2, Llama-3, Mistral, Gemma, Phi-3, DeepSeek, …)
// and render them exactly as Python Jinja2 does with transformers' environment. An unrecognised
// template is run by the Jinja interpreter (chat/jinja_chat_template.h). A configured fallback family
// is used for a model without a template (else the documented plain format) and for a source the
// interpreter cannot parse (else Error "unsupported_chat_template").
//
// Families, signatures, the plain fallback and the exactness status of every case are listed in
// docs/chat-templates.md. Reference behaviour: Python Jinja2 3.1 with the environment of
// `transformers.apply_chat_template` (sandboxed, trim_blocks, lstrip_blocks, loop controls, `tojson`
// = `json.dumps(ensure_ascii=False)`, `raise_exception`, `strftime_now`).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "chat/conversation.h"
#include "chat/field_error.h"
#include "chat/jinja/template.h"
#include "chat/messages.h"

namespace a3s::power::chat {

struct RenderOptions {
  std::string bos_token;  // text of the model's BOS token ("" if none)
  std::string eos_token;  // text of the model's EOS token
  bool add_generation_prompt = true;
  // OpenAI `tools` (array of {"type":"function","function":{name, description, parameters}}).
  // null → the template sees no `tools` variable (as when a request has none); an array (even an
  // empty one) is passed to the template as given. Use nlohmann::ordered_json so that `tojson` in
  // the template reproduces the client's key order byte for byte. Families that cannot render
  // tools exactly throw FieldError(codes::kUnsupportedField, param "tools") instead of guessing.
  nlohmann::ordered_json tools = nullptr;
  // Date seen by templates that print today's date (Jinja `strftime_now`, e.g. Llama 3.2's "Today
  // Date: 26 Jul 2026"), as "YYYY-MM-DD". Empty → the current local date.
  std::string today;
  // OpenAI sends tool-call `arguments` as a JSON string, while templates either serialise them with
  // `tojson` (expecting an object) or concatenate them (expecting a string). false (default):
  // pass them to the template exactly as given (what transformers does). true (what the server
  // asks for): convert them to what the template expects (tool_call_arguments(): a string that
  // parses as a JSON object becomes that object for `tojson` templates; an object becomes its
  // `json.dumps` text for concatenating ones).
  bool adapt_tool_call_arguments = false;
  // chat_template_kwargs: extra template variables (a JSON object, not owned; nullptr, null or {} →
  // none), as
  // transformers.apply_chat_template(**kwargs) passes them (e.g. Qwen 3's enable_thinking). They are
  // caller values. Only interpreter-run templates (family "jinja") take them: a built-in family
  // throws FieldError(codes::kUnsupportedField, "chat_template_kwargs") for a non-empty object,
  // since its C++ renderer would not read them.
  const nlohmann::ordered_json* template_kwargs = nullptr;
  // The request's reasoning_effort ("" when not given): the template variable `reasoning_effort`
  // (gpt-oss reads it), set after template_kwargs. Only interpreter-run templates take it: a built-in
  // family throws FieldError(codes::kUnsupportedField, "reasoning_effort") when it is given.
  std::string reasoning_effort;
};

// Instances are immutable after create(): render() may be called concurrently from any thread.
class ChatTemplate {
 public:
  // template_source: tokenizer.chat_template, or nullopt when the model has none (an empty or
  // all-whitespace source counts as none).
  // fallback_family (e.g. "chatml"; empty: none): used when there is no source (else the plain
  // format) and when the interpreter cannot parse an unrecognised source.
  // Throws Error(codes::kUnsupportedChatTemplate) for an unrecognised source that the interpreter
  // cannot parse, without a fallback, and Error(codes::kInvalidArgument) for an unknown fallback
  // name (see known_families()).
  static std::unique_ptr<ChatTemplate> create(const std::optional<std::string>& template_source,
                                              const std::string& fallback_family = "");
  // Names accepted as fallback_family: every family and every variant name.
  static std::vector<std::string> known_families();

  virtual ~ChatTemplate() = default;
  virtual std::string family() const = 0;  // "chatml", "llama3", …, "plain"
  // The exact template recognised within the family ("qwen2.5", "llama3.1", "gemma2", …); equals
  // family() when the family has a single variant.
  virtual std::string variant() const { return family(); }
  // Whether this variant reproduces the template's tool rendering (tools, tool_calls, tool role).
  virtual bool supports_tools() const { return false; }
  // How the template prints tool-call arguments (what RenderOptions::adapt_tool_call_arguments
  // converts them to): a built-in family's from its table, an interpreter-run template's found by
  // rendering a probe call once when it is created.
  virtual ArgumentsStyle tool_call_arguments() const { return ArgumentsStyle::kAsGiven; }

  // messages: the parsed conversation (chat/messages.h); the renderer reads it through to_json.
  // Throws FieldError(codes::kInvalidRequest, "messages") when it is empty,
  // FieldError(codes::kUnsupportedField) for tool features the family cannot reproduce,
  // FieldError(codes::kInvalidRequest, "tools") for malformed tools, and Error(codes::kInvalidRequest)
  // with the template's own message when the template rejects the conversation (e.g. Gemma's
  // "TemplateError: System role not supported" — the text Python would print for the exception:
  // its type, ": ", its message). Never user text.
  virtual std::string render(const Messages& messages, const RenderOptions& opts) const = 0;

  // render() with the byte spans of the text that came from caller values, for templates that
  // track them (the Jinja interpreter); nullopt for the built-in families, whose callers quote the
  // messages before render() instead (runtime/prompt_builder.h). Same errors as render().
  virtual std::optional<jinja::Rendered> render_with_caller_spans(const Messages&, const RenderOptions&) const {
    return std::nullopt;
  }

  // A JSON messages array (the shape in chat/messages.h): parse_messages(messages,
  // MessagePolicy::kTemplate), then render(). Throws its FieldErrors as well. render() of
  // nlohmann::json sees object keys in sorted order; render_ordered() keeps the given key order
  // (byte-exact `tojson` of tool calls).
  std::string render(const nlohmann::json& messages, const RenderOptions& opts) const;
  std::string render_ordered(const nlohmann::ordered_json& messages, const RenderOptions& opts) const;
};

}  // namespace a3s::power::chat

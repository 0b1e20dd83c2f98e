// Validation and normalisation of OpenAI-style chat messages and tools before rendering.
//
// Accepted message shape (OpenAI Chat Completions, https://platform.openai.com/docs/api-reference/chat):
//   {"role": "system"|"user"|"assistant"|"tool",
//    "content": string | [{"type": "text", "text": string}, ...] | null,
//    "tool_calls": [{"id"?: string, "type"?: string,
//                    "function": {"name": string, "arguments": string | object}}]  (assistant only),
//    "tool_call_id"?: string, "name"?: string, ...other keys kept as given}
// Normalised form handed to the family renderers:
//   - content is a string (text parts concatenated in order, no separator), or null for an
//     assistant message that carries tool_calls and has no (or null) content;
//   - "tool_calls": null is dropped (the same as absent);
//   - everything else is kept as given, in the given key order.
// Errors: FieldError(codes::kInvalidRequest, "messages") for a malformed conversation, and
// FieldError(codes::kUnsupportedField, "messages") for content parts other than text. Messages name the
// index and field ("messages[2].content[0].type ..."), never the text.
#pragma once

#include <nlohmann/json.hpp>

namespace a3s::power::chat {

// Returns the normalised messages array. Throws as described above.
nlohmann::ordered_json normalize_messages(const nlohmann::ordered_json& messages);

// Validates `tools`: null, or an array of objects; an item whose "type" is "function" (or that has
// a "function" key) needs "function" to be an object with a string "name".
// Throws FieldError(codes::kInvalidRequest, "tools").
void validate_tools(const nlohmann::ordered_json& tools);

// How a family's template consumes tool-call arguments (see RenderOptions::adapt_tool_call_arguments).
enum class ArgumentsStyle {
  kAsGiven,  // the template accepts both (or never reads them)
  kObject,   // the template serialises them with tojson: pass an object
  kString,   // the template concatenates them: pass a string
};

// Converts the tool-call arguments of normalised messages to the given style, in place: a string
// that parses as a JSON object becomes the object (kObject); a non-string becomes its
// json.dumps text (kString). Other values are left alone.
void adapt_tool_call_arguments(nlohmann::ordered_json& messages, ArgumentsStyle style);

}  // namespace a3s::power::chat

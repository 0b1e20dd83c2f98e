// Tools and tool-call arguments as the chat templates see them. The messages themselves are parsed
// by parse_messages (chat/messages.h) and reach the templates through to_json.
#pragma once

#include <nlohmann/json.hpp>

namespace a3s::power::chat {

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

// Converts the tool-call arguments of messages in the to_json form (chat/messages.h) to the given
// style, in place: a string that parses as a JSON object becomes the object (kObject); a non-string
// becomes its json.dumps text (kString). Other values are left alone.
void adapt_tool_call_arguments(nlohmann::ordered_json& messages, ArgumentsStyle style);

}  // namespace a3s::power::chat

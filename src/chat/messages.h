// The chat conversation as one typed value, parsed once where it enters the program.
//
// Input shape (OpenAI Chat Completions, https://platform.openai.com/docs/api-reference/chat): a
// non-empty JSON array of messages
//   {"role": "system"|"user"|"assistant"|"tool",
//    "content": string | [{"type": "text", "text": string}, ...] | null,
//    "name"?: string, "tool_call_id"?: string,
//    "tool_calls"?: [{"id"?: string, "type"?: string,
//                     "function": {"name": string, "arguments": string | object}, ...}]}
// Text content parts are joined in order with "\n" between them (under both policies).
//
// Two policies say which fields a source may send:
//   kApi       the HTTP API (POST /v1/chat/completions): roles system, user, assistant, tool, and
//              "developer" (taken as system); "content" is required (a string or text parts whose
//              only keys are "type" and "text") except on an assistant message with tool calls;
//              "name" may be given (or null); "tool_calls" only on assistant messages (shape as
//              above; arguments that are not valid JSON are kept as given), "tool_call_id" only on
//              tool messages. The legacy "function_call" and role "function", "audio" and
//              "refusal" are refused as unsupported_field, and so is any other key (a null value
//              counts as not given). Error params name the exact field ("messages[1].content[0].type").
//   kTemplate  conversations handed to a chat template directly (the command line, embedders and
//              tests): role "tool" and the tool fields are accepted; "content" may be null or absent
//              on an assistant message that carries "tool_calls"; "tool_calls": null is the same as
//              absent; other keys are kept as given (a template may read them, e.g. "tool_plan").
//              Every error param is "messages".
// Errors: FieldError(codes::kInvalidRequest) for a malformed conversation and
// FieldError(codes::kUnsupportedField) for what the policy refuses (content parts other than text,
// and the API refusals above). Messages name the index and field, never the text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/field_error.h"

namespace a3s::power::chat {

enum class Role { kSystem, kUser, kAssistant, kTool };

// "system", "user", "assistant", "tool".
const char* role_name(Role role);

struct Message {
  Role role = Role::kUser;
  // The text (content parts joined with "\n"); nullopt only for an assistant message that carries
  // tool_calls and has no content (kTemplate).
  std::optional<std::string> content;
  std::optional<std::string> name;
  std::optional<std::string> tool_call_id;
  // The assistant's tool calls, each object as given (validated as above), in the given order;
  // nullopt when the message has none. An empty array given is kept as an empty vector.
  std::optional<std::vector<nlohmann::ordered_json>> tool_calls;
  // Other keys of the message as given, in the given order (kTemplate only; always empty under kApi).
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
};

using Messages = std::vector<Message>;

enum class MessagePolicy { kApi, kTemplate };

// Parses and validates a messages array. Throws FieldError as described above.
Messages parse_messages(const nlohmann::json& messages, MessagePolicy policy);
Messages parse_messages(const nlohmann::ordered_json& messages, MessagePolicy policy);

// Builds a message with text content (the command line's turns).
Message text_message(Role role, std::string content);

// The messages as a JSON array: each message {"role", "content" (string or null), then "name",
// "tool_call_id", "tool_calls" when present, then the extra keys}. This is the one conversion to
// JSON: the chat template renderer reads it, and `a3s-power chat` sends it to the server.
nlohmann::ordered_json to_json(const Messages& messages);

}  // namespace a3s::power::chat

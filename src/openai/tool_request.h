// The tool fields of a chat request (OpenAI "Create chat completion": tools, tool_choice,
// parallel_tool_calls), validated once where they enter; the Responses and Anthropic routes convert
// their own shapes to this one.
//
//   tools                an array of 1..128 {"type": "function", "function": {"name", "description"?,
//                        "parameters"?, "strict"?}}; names are 1..64 of [A-Za-z0-9_-] and unique;
//                        "parameters" is a JSON Schema of type "object" ({} or absent: any object; how
//                        far it is enforced: docs/grammar.md).
//                        Other tool types are refused as unsupported_field.
//   tool_choice          "auto" (default with tools) | "none" | "required" |
//                        {"type": "function", "function": {"name"}} naming one of the tools.
//   parallel_tool_calls  boolean (default true): false allows at most one call per reply.
// Errors: ApiError (HTTP 400) naming the field; never a value from the request.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/completion.h"

namespace a3s::power::openai {

struct ToolChoice {
  enum class Kind { kAuto, kNone, kRequired, kNamed };
  Kind kind = Kind::kAuto;
  std::string name;  // kNamed: the function
};

struct ToolRequest {
  nlohmann::ordered_json tools = nullptr;  // validated, as given (the template renders them); null: none
  ToolChoice choice;
  bool parallel = true;
  // Whether the reply is read for tool calls: tools given and the choice is not "none".
  bool active() const { return !tools.is_null() && choice.kind != ToolChoice::Kind::kNone; }
};

// Reads the three fields from `body` (absent or null: not given). tool_choice "none"/"auto" and
// parallel_tool_calls without tools are accepted and mean nothing; "required" or a named function
// without tools is an error.
ToolRequest parse_tool_request(const nlohmann::ordered_json& body);

// Hands the tools to a request: when active(), the tools (rendered by the template), the reading of
// tool calls and, for "required" or a named function, the call the reply must be.
void apply_tool_request(const ToolRequest& tools, runtime::CompletionRequest& request);

// The fields that come in the client's key order (tools and schemas): `keys` of the body, parsed
// again from its text when at hand, else taken from `body` (sorted keys).
nlohmann::ordered_json ordered_fields(const nlohmann::json& body, const std::string& raw_body,
                                      std::initializer_list<const char*> keys);

// The `parameters` schema of the named tool (an object; {} when the tool has none).
const nlohmann::ordered_json& tool_parameters(const ToolRequest& tools, const std::string& name);

}  // namespace a3s::power::openai

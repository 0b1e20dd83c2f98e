// The grammar that makes a reply tool calls (tool_choice "required" or a named function), written in
// the model's tool-call syntax (chat/tool_calls.h) so that the reply parses back as calls, with each
// call's arguments following its function's `parameters` schema (grammar/json_schema.h).
//
// Per syntax, the reply is: kHermes <tool_call>\n{"name": N, "arguments": A}\n</tool_call> (calls
// separated by "\n"); kLlama3 {"name": N, "parameters": A} (separated by "; "); kMistral
// [TOOL_CALLS][{"name": N, "arguments": A}, …]; kFunctionary N\nA (after the prompt's ">>>",
// further calls after ">>>"); kCommandR <|START_ACTION|>[{"tool_call_id": "0", "tool_name": N,
// "parameters": A}, …]<|END_ACTION|>; kDeepseekR1 <｜tool▁calls▁begin｜> then per call
// <｜tool▁call▁begin｜>function<｜tool▁sep｜>N\n```json\nA\n```<｜tool▁call▁end｜>, then
// <｜tool▁calls▁end｜>; kGptOss <|channel|>commentary to=functions.N <|constrain|>json<|message|>A
// (one call). At most 8 calls with `parallel` (one for kLlama3, whose templates take one call per
// turn), else one.
//
// Errors: chat::FieldError(codes::kUnsupportedField, "tool_choice") for a syntax a grammar cannot
// write (kNone, kDeepseekDsml); a parameters schema the compiler refuses →
// chat::FieldError(its code, "tools") naming the tool's index and the keyword.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/tool_calls.h"
#include "grammar/grammar.h"

namespace a3s::power::runtime {

// tools: the validated OpenAI tools array; only_name: the one function allowed ("" for any).
std::shared_ptr<const grammar::Grammar> tool_call_grammar(chat::ToolCallSyntax syntax, const nlohmann::ordered_json& tools,
                                                          const std::string& only_name, bool parallel);

}  // namespace a3s::power::runtime

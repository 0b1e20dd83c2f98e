// What a reply must look like, as a grammar for constrained sampling (docs/grammar.md):
//
//   response_format  (chat) {"type": "text"} — nothing; {"type": "json_object"} — one JSON object;
//                    {"type": "json_schema", "json_schema": {"name"?, "description"?, "schema",
//                    "strict"?}} — a JSON document the schema accepts (grammar/json_schema.h; the
//                    schema is always enforced, `strict` or not; a keyword it cannot enforce is a 400
//                    naming the keyword, never ignored).
//   grammar          (both endpoints) a grammar in the format of docs/grammar.md, as llama-server
//                    takes it; not together with a JSON response_format.
//
// Errors: ApiError (HTTP 400) with param "response_format" or "grammar"; messages name keywords and
// positions, never a value from the request.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "grammar/grammar.h"

namespace a3s::power::openai {

// The grammar the reply must follow, from the "response_format" and "grammar" members of `fields`
// (absent or null: not given); nullptr when neither asks for one.
std::shared_ptr<const grammar::Grammar> output_grammar(const nlohmann::ordered_json& fields);

// The grammars behind it, for routes with their own shapes (the Responses API's text.format): a JSON
// document `schema` accepts, and any JSON object; errors name `param`.
std::shared_ptr<const grammar::Grammar> json_schema_grammar(const nlohmann::ordered_json& schema, const char* param);
std::shared_ptr<const grammar::Grammar> any_json_object_grammar(const char* param);

}  // namespace a3s::power::openai

// JSON Schema (a draft 2020-12 subset) → grammar text (grammar/grammar.h syntax, start rule "root"),
// for structured output: the sentences of the grammar are JSON documents the schema accepts.
//
// The documents are compact: no whitespace anywhere except one optional space after each ':' and
// ',' that separate members and elements. Within that form the grammar accepts exactly the
// documents the schema accepts, except where docs/grammar.md ("JSON Schema support") documents a
// subset: object members come in the order the schema declares them, then any additional members;
// `enum` / `const` values and property names are written in one spelling; strings constrained by
// `pattern` or `format` write each character unescaped where JSON allows it; numbers with bounds
// have no exponent; `integer` values have no fraction or exponent; every number stays within
// binary64 range (at most 195 integer digits, a two-digit exponent); `additionalProperties` absent
// next to `properties` or `required` allows no other member. `oneOf` is compiled as `anyOf` (a
// document matching several branches is accepted).
//
// Refusals: a keyword the compiler cannot enforce (multipleOf, uniqueItems, patternProperties,
// not, if/then/else, an unsupported `format` or regular expression feature, a $ref outside the
// document, …) throws Error(kUnsupportedField) naming the keyword and its location as a JSON
// pointer; a malformed schema (a keyword of the wrong type, an unresolvable $ref, minItems above
// maxItems, a schema that accepts nothing, a $ref cycle that consumes no input, subschemas nested
// more than 64 deep, a schema over 64 KiB of compact JSON, an `enum` of more than 1024 values, a
// grammar over 256 KiB or over parse_grammar's 4096 rules) throws
// Error(kInvalidRequest). Messages never quote a string value of the schema; property and $defs
// names in pointers are printable ASCII (\xNN escapes), each cut at 64 bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace a3s::power::grammar {

// Members in the schema's declaration order.
std::string json_schema_to_grammar(const nlohmann::ordered_json& schema);
// The same; nlohmann::json keeps object members sorted by name, so that is the declaration order.
std::string json_schema_to_grammar(const nlohmann::json& schema);

// The grammar for response_format {"type": "json_object"}: any JSON object (same compact form).
std::string json_object_grammar();

}  // namespace a3s::power::grammar

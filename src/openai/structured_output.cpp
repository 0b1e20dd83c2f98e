#include "openai/structured_output.h"

#include "grammar/json_schema.h"
#include "openai/api_error.h"
#include "openai/request_fields.h"

namespace a3s::power::openai {
namespace {

using ojson = nlohmann::ordered_json;

bool given(const ojson& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && !it->is_null();
}

// Compiles grammar text made from a request value; its errors become 400s on `param`.
template <typename Make>
std::shared_ptr<const grammar::Grammar> compiled(const char* param, Make make) {
  try {
    return grammar::parse_grammar(make());
  } catch (const Error& e) {
    if (e.kind() == codes::kResourceExhausted || e.kind() == codes::kInternal) throw;
    throw ApiError(e.kind() == codes::kUnsupportedField ? codes::kUnsupportedField : codes::kInvalidRequest,
                   std::string("'") + param + "': " + e.what(), param);
  }
}

// The grammar text of a response_format, or "" for text.
std::shared_ptr<const grammar::Grammar> response_format_grammar(const ojson& rf) {
  if (!rf.is_object() || !rf.contains("type") || !rf["type"].is_string()) {
    bad_field("response_format", "'response_format' must be an object with a string 'type'");
  }
  const std::string& type = rf["type"].get_ref<const std::string&>();
  auto only = [&](std::initializer_list<const char*> keys) {
    for (auto it = rf.begin(); it != rf.end(); ++it) {
      bool known = false;
      for (const char* k : keys) known = known || it.key() == k;
      if (!known) bad_field("response_format", "'response_format' has an unknown field");
    }
  };
  if (type == "text") {
    only({"type"});
    return nullptr;
  }
  if (type == "json_object") {
    only({"type"});
    return any_json_object_grammar("response_format");
  }
  if (type != "json_schema") {
    bad_field("response_format.type", "'response_format.type' must be \"text\", \"json_object\" or \"json_schema\"");
  }
  only({"type", "json_schema"});
  if (!given(rf, "json_schema") || !rf["json_schema"].is_object()) {
    bad_field("response_format.json_schema", "'response_format.json_schema' must be an object");
  }
  const ojson& js = rf["json_schema"];
  for (auto it = js.begin(); it != js.end(); ++it) {
    const std::string& k = it.key();
    if (k != "name" && k != "description" && k != "schema" && k != "strict") {
      bad_field("response_format.json_schema", "'response_format.json_schema' has an unknown field");
    }
  }
  if (given(js, "name") && !js["name"].is_string()) {
    bad_field("response_format.json_schema.name", "'response_format.json_schema.name' must be a string");
  }
  if (given(js, "strict") && !js["strict"].is_boolean()) {
    bad_field("response_format.json_schema.strict", "'response_format.json_schema.strict' must be a boolean");
  }
  if (!given(js, "schema") || !(js["schema"].is_object() || js["schema"].is_boolean())) {
    bad_field("response_format.json_schema.schema", "'response_format.json_schema.schema' must be a JSON Schema object");
  }
  return json_schema_grammar(js["schema"], "response_format");
}

}  // namespace

std::shared_ptr<const grammar::Grammar> json_schema_grammar(const ojson& schema, const char* param) {
  return compiled(param, [&] { return grammar::json_schema_to_grammar(schema); });
}

std::shared_ptr<const grammar::Grammar> any_json_object_grammar(const char* param) {
  return compiled(param, [] { return grammar::json_object_grammar(); });
}

std::shared_ptr<const grammar::Grammar> output_grammar(const ojson& fields) {
  std::shared_ptr<const grammar::Grammar> g;
  if (given(fields, "response_format")) g = response_format_grammar(fields["response_format"]);
  if (given(fields, "grammar")) {
    const ojson& text = fields["grammar"];
    if (!text.is_string() || text.get_ref<const std::string&>().empty()) {
      bad_field("grammar", "'grammar' must be a non-empty string");
    }
    if (g) bad_field("grammar", "'grammar' cannot be combined with a JSON 'response_format'");
    g = compiled("grammar", [&] { return text.get<std::string>(); });
  }
  return g;
}

}  // namespace a3s::power::openai

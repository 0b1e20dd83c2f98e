// libFuzzer target for the JSON Schema compiler (grammar/json_schema.h). The input is JSON text (an
// input that does not parse is skipped). Properties:
//   - json_schema_to_grammar gives grammar text or refuses with Error(kInvalidRequest) or
//     Error(kUnsupportedField) carrying a one-line printable ASCII message that never contains a
//     string value of the schema (12 bytes or longer, unless it is also a member name, a keyword or a
//     format name the message may name); the same schema gives the same outcome again, and the
//     nlohmann::json overload (members sorted) compiles or refuses too;
//   - grammar text it gives is accepted by parse_grammar (the compiler checks the parser's limits
//     itself, so any refusal there is a bug);
//   - a walk through the grammar, each byte drawn among the bytes the matcher can accept (seeded by
//     the input), stays consistent (can_accept(b) == accept(b)), never reaches a dead end that is
//     not a sentence, and every prefix at which the matcher can end is a complete JSON document that
//     nlohmann::json parses (numbers included: they stay within binary64 range);
//   - the matcher refuses only with Error(kResourceExhausted) (a grammar too ambiguous).
// Any other exception, a crash, a sanitizer report, a hang or unbounded memory is a bug. Seeds:
// tests/fuzz/seeds/json_schema/ (the schemas of tests/data/json_schemas/schemas.json); dictionary:
// tests/fuzz/json_schema.dict.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace {

using a3s::power::Error;
using a3s::power::ErrorCode;
using nlohmann::ordered_json;
namespace grammar = a3s::power::grammar;

constexpr size_t kMinEchoBytes = 12;
constexpr size_t kWalkBytes = 256;

// Names a message may contain on its own account.
bool message_may_name(const std::string& s) {
  static const std::set<std::string> names = {
      "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "dependentRequired",
      "dependentSchemas",     "patternProperties",     "propertyNames",    "exclusiveMinimum",
      "exclusiveMaximum",     "relative-json-pointer", "uri-reference",    "iri-reference",
      "uri-template",         "idn-hostname",          "json-pointer",     "$recursiveAnchor",
      "$dynamicAnchor",       "$recursiveRef",         "maxProperties",    "minProperties"};
  return names.contains(s);
}

void collect(const ordered_json& v, std::set<std::string>& values, std::set<std::string>& keys, int depth) {
  if (depth > 300) return;
  if (v.is_string()) {
    values.insert(v.get<std::string>());
  } else if (v.is_array()) {
    for (const ordered_json& e : v) collect(e, values, keys, depth + 1);
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      keys.insert(it.key());
      collect(it.value(), values, keys, depth + 1);
    }
  }
}

struct Outcome {
  bool compiled = false;
  std::string text;  // grammar or message
  ErrorCode code = ErrorCode::kInternal;
};

template <typename Json>
Outcome compile(const Json& schema) {
  Outcome out;
  try {
    out.text = grammar::json_schema_to_grammar(schema);
    out.compiled = true;
  } catch (const Error& e) {
    out.text = e.what();
    out.code = e.kind();
  }
  return out;
}

void check_refusal(const Outcome& o, const ordered_json& schema) {
  if (o.code != ErrorCode::kInvalidRequest && o.code != ErrorCode::kUnsupportedField) __builtin_trap();
  if (o.text.empty()) __builtin_trap();
  for (unsigned char c : o.text) {
    if (c < 0x20 || c > 0x7E) __builtin_trap();
  }
  std::set<std::string> values;
  std::set<std::string> keys;
  collect(schema, values, keys, 0);
  for (const std::string& v : values) {
    if (v.size() < kMinEchoBytes || keys.contains(v) || message_may_name(v)) continue;
    if (o.text.find(v) != std::string::npos) __builtin_trap();
  }
}

// A walk through the grammar: every prefix the matcher can end at must be a JSON document.
void walk(const std::shared_ptr<const grammar::Grammar>& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  grammar::Matcher m(g);
  std::string text;
  try {
    for (size_t step = 0; step < kWalkBytes; ++step) {
      if (m.can_end()) {
        if (!nlohmann::json::accept(text)) __builtin_trap();
        if (rng() % 4 == 0) return;
      }
      std::vector<char> allowed;
      for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        if (m.can_accept(std::string_view(&c, 1))) allowed.push_back(c);
      }
      if (allowed.empty()) {
        if (!m.can_end()) __builtin_trap();  // a dead end that is not a sentence
        return;
      }
      const char c = allowed[rng() % allowed.size()];
      if (!m.accept(std::string_view(&c, 1))) __builtin_trap();
      text.push_back(c);
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorCode::kResourceExhausted) throw;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ordered_json schema = ordered_json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return 0;
  const Outcome first = compile(schema);
  const Outcome again = compile(schema);
  if (first.compiled != again.compiled || first.text != again.text) __builtin_trap();
  const nlohmann::json sorted = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  const Outcome other = compile(sorted);
  if (!other.compiled) check_refusal(other, schema);
  if (!first.compiled) {
    check_refusal(first, schema);
    return 0;
  }
  std::shared_ptr<const grammar::Grammar> g;
  try {
    g = grammar::parse_grammar(first.text);
  } catch (const Error&) {
    __builtin_trap();  // the compiler wrote a grammar the parser refuses
  }
  uint64_t seed = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) seed = (seed ^ data[i]) * 1099511628211ull;
  walk(g, seed);
  return 0;
}

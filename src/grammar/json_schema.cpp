#include "grammar/json_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "a3s/power/error.h"
#include "base/json_string.h"
#include "base/printable.h"
#include "grammar/json_schema_automata.h"
#include "grammar/json_schema_regex.h"
#include "grammar/json_schema_rules.h"

namespace a3s::power::grammar {

namespace {

using Json = nlohmann::ordered_json;
using schema::CodeSet;
using schema::DecimalBound;
using schema::Dfa;
using schema::Item;
using schema::Rules;
using schema::Sequence;

constexpr size_t kMaxGrammarBytes = 256 * 1024;
constexpr int kMaxSchemaDepth = 64;           // subschemas below the root or a $ref target
constexpr int kMaxDocumentDepth = 256;        // JSON nesting of the schema document
constexpr size_t kMaxAutomatonStates = 5000;  // each state becomes a rule; parse_grammar takes 4096
constexpr size_t kMaxBuiltRules = 200000;     // before render() prunes and counts
constexpr uint64_t kMaxValidationSteps = 200000;
constexpr size_t kMaxSchemaBytes = 64 * 1024;  // the schema as compact JSON text
constexpr size_t kMaxEnumValues = 1024;

// ---- Messages ----

// One name inside a pointer: RFC 6901 escapes, then printable ASCII (\xNN), cut at 64 bytes.
std::string segment(std::string_view name) {
  std::string escaped;
  for (char c : name) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped.push_back(c);
    }
  }
  PrintableStyle style;
  style.max_bytes = 64;
  style.unprintable = Unprintable::kNonAscii;
  style.also_unprintable = "\\";
  style.hex_escape = true;
  style.mark_cut = true;
  return printable(escaped, style);
}

std::string where(const std::string& ptr) {
  if (ptr.empty()) return "the schema root";
  if (ptr.size() > 256) return "..." + ptr.substr(ptr.size() - 256);
  return ptr;
}

[[noreturn]] void unsupported(std::string_view keyword, const std::string& ptr,
                              const std::string& detail = {}) {
  std::string msg = "unsupported JSON Schema keyword '" + std::string(keyword) + "' at " + where(ptr);
  if (!detail.empty()) msg += " (" + detail + ")";
  throw Error(codes::kUnsupportedField, msg);
}

[[noreturn]] void malformed(const std::string& ptr, const std::string& what) {
  throw Error(codes::kInvalidRequest, "invalid JSON Schema at " + where(ptr) + ": " + what);
}

[[noreturn]] void too_large(const std::string& ptr) {
  throw Error(codes::kInvalidRequest,
              "the JSON Schema at " + where(ptr) +
                  " compiles to a grammar over the size limits (256 KiB, 4096 rules)");
}

// ---- Keywords ----

enum TypeBit : unsigned {
  kNull = 1,
  kBoolean = 2,
  kObject = 4,
  kArray = 8,
  kNumber = 16,
  kInteger = 32,
  kString = 64,
  kAllTypes = 127,
};

std::optional<unsigned> type_bit(std::string_view name) {
  if (name == "null") return kNull;
  if (name == "boolean") return kBoolean;
  if (name == "object") return kObject;
  if (name == "array") return kArray;
  if (name == "number") return kNumber;
  if (name == "integer") return kInteger;
  if (name == "string") return kString;
  return std::nullopt;
}

// Format names of the JSON Schema specification (safe to name in a message; other values are not).
bool is_specified_format(std::string_view name) {
  static const std::set<std::string_view> names = {
      "date-time", "date",          "time", "duration",     "email",        "idn-email",
      "hostname",  "idn-hostname",  "ipv4", "ipv6",         "uri",          "uri-reference",
      "iri",       "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer",
      "regex"};
  return names.contains(name);
}

// Keywords that assert something the compiler does not enforce (drafts 4 to 2020-12).
// The keyword as the table spells it (a name that never comes from the schema), or nullopt.
std::optional<std::string_view> refused_keyword(std::string_view key) {
  static const std::set<std::string_view> names = {"multipleOf",
                                                   "patternProperties",
                                                   "propertyNames",
                                                   "dependentRequired",
                                                   "dependentSchemas",
                                                   "dependencies",
                                                   "if",
                                                   "then",
                                                   "else",
                                                   "not",
                                                   "maxProperties",
                                                   "contains",
                                                   "minContains",
                                                   "maxContains",
                                                   "unevaluatedProperties",
                                                   "unevaluatedItems",
                                                   "additionalItems",
                                                   "$dynamicRef",
                                                   "$dynamicAnchor",
                                                   "$recursiveRef",
                                                   "$recursiveAnchor"};
  auto it = names.find(key);
  if (it == names.end()) return std::nullopt;
  return *it;
}

struct Keywords {
  const Json* node = nullptr;
  std::string ptr;
  unsigned types = kAllTypes;
  bool has_type = false;
  bool nullable = false;
  const Json* enum_values = nullptr;
  const Json* const_value = nullptr;
  // string
  uint64_t min_length = 0;
  std::optional<uint64_t> max_length;
  const Json* pattern = nullptr;
  const Json* format = nullptr;
  // number
  const Json* minimum = nullptr;
  const Json* maximum = nullptr;
  const Json* exclusive_minimum = nullptr;
  const Json* exclusive_maximum = nullptr;
  // array
  const Json* items = nullptr;
  const Json* prefix_items = nullptr;
  uint64_t min_items = 0;
  std::optional<uint64_t> max_items;
  bool unique_items = false;
  // object
  const Json* properties = nullptr;
  const Json* required = nullptr;
  const Json* additional = nullptr;
  // applicators
  const Json* ref = nullptr;
  const Json* any_of = nullptr;
  const Json* one_of = nullptr;
  const Json* all_of = nullptr;
  // Whether any type-specific keyword is present.
  bool type_specific = false;
};

uint64_t non_negative_integer(const Json& v, std::string_view keyword, const std::string& ptr) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i >= 0) return static_cast<uint64_t>(i);
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d < 9.2e18 && std::floor(d) == d) return static_cast<uint64_t>(d);
  }
  malformed(ptr, "'" + std::string(keyword) + "' must be a non-negative integer");
}

bool is_schema(const Json& v) {
  return v.is_object() || v.is_boolean();
}

// Reads and checks the keywords of a schema object. Refuses unsupported keywords and combinations.
Keywords read_keywords(const Json& node, const std::string& ptr, bool is_root) {
  Keywords k;
  k.node = &node;
  k.ptr = ptr;
  std::vector<std::string_view> applicators;  // $ref, anyOf, oneOf, allOf, and "type" for the rest
  std::string_view first_typed;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    auto typed = [&](std::string_view name) {
      k.type_specific = true;
      if (first_typed.empty()) first_typed = name;
    };
    if (key == "type") {
      k.has_type = true;
      if (first_typed.empty()) first_typed = "type";
      k.types = 0;
      auto add = [&](const Json& name) {
        if (!name.is_string()) malformed(ptr, "'type' must be a type name or an array of them");
        const auto bit = type_bit(name.get_ref<const std::string&>());
        if (!bit) malformed(ptr, "'type' names an unknown type");
        if (k.types & *bit) malformed(ptr, "'type' lists a type twice");
        k.types |= *bit;
      };
      if (v.is_array()) {
        if (v.empty()) malformed(ptr, "'type' must not be an empty array");
        for (const Json& name : v) add(name);
      } else {
        add(v);
      }
    } else if (key == "nullable") {
      if (!v.is_boolean()) malformed(ptr, "'nullable' must be a boolean");
      k.nullable = v.get<bool>();
      if (first_typed.empty() && k.nullable) first_typed = "nullable";
    } else if (key == "enum") {
      if (!v.is_array()) malformed(ptr, "'enum' must be an array");
      if (v.size() > kMaxEnumValues) {
        malformed(ptr, "'enum' lists more than " + std::to_string(kMaxEnumValues) + " values");
      }
      k.enum_values = &v;
    } else if (key == "const") {
      k.const_value = &v;
    } else if (key == "minLength") {
      k.min_length = non_negative_integer(v, key, ptr);
      typed("minLength");
    } else if (key == "maxLength") {
      k.max_length = non_negative_integer(v, key, ptr);
      typed("maxLength");
    } else if (key == "pattern") {
      if (!v.is_string()) malformed(ptr, "'pattern' must be a string");
      k.pattern = &v;
      typed("pattern");
    } else if (key == "format") {
      if (!v.is_string()) malformed(ptr, "'format' must be a string");
      k.format = &v;
      typed("format");
    } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" ||
               key == "exclusiveMaximum") {
      if (!v.is_number()) malformed(ptr, "'" + key + "' must be a number");
      if (v.is_number_float() && !std::isfinite(v.get<double>()))
        malformed(ptr, "'" + key + "' must be finite");
      if (key == "minimum") {
        k.minimum = &v;
        typed("minimum");
      } else if (key == "maximum") {
        k.maximum = &v;
        typed("maximum");
      } else if (key == "exclusiveMinimum") {
        k.exclusive_minimum = &v;
        typed("exclusiveMinimum");
      } else {
        k.exclusive_maximum = &v;
        typed("exclusiveMaximum");
      }
    } else if (key == "items") {
      if (v.is_array()) malformed(ptr, "'items' must be a schema (a tuple's schemas go in 'prefixItems')");
      if (!is_schema(v)) malformed(ptr, "'items' must be a schema");
      k.items = &v;
      typed("items");
    } else if (key == "prefixItems") {
      if (!v.is_array() || v.empty()) malformed(ptr, "'prefixItems' must be a non-empty array of schemas");
      for (const Json& s : v) {
        if (!is_schema(s)) malformed(ptr, "'prefixItems' must be a non-empty array of schemas");
      }
      k.prefix_items = &v;
      typed("prefixItems");
    } else if (key == "minItems") {
      k.min_items = non_negative_integer(v, key, ptr);
      typed("minItems");
    } else if (key == "maxItems") {
      k.max_items = non_negative_integer(v, key, ptr);
      typed("maxItems");
    } else if (key == "uniqueItems") {
      if (!v.is_boolean()) malformed(ptr, "'uniqueItems' must be a boolean");
      k.unique_items = v.get<bool>();
      if (k.unique_items) typed("uniqueItems");
    } else if (key == "properties") {
      if (!v.is_object()) malformed(ptr, "'properties' must be an object of schemas");
      for (auto p = v.begin(); p != v.end(); ++p) {
        if (!is_schema(p.value()))
          malformed(ptr + "/properties/" + segment(p.key()), "a schema must be an object or a boolean");
      }
      k.properties = &v;
      typed("properties");
    } else if (key == "required") {
      if (!v.is_array()) malformed(ptr, "'required' must be an array of strings");
      for (const Json& s : v) {
        if (!s.is_string()) malformed(ptr, "'required' must be an array of strings");
      }
      k.required = &v;
      typed("required");
    } else if (key == "additionalProperties") {
      if (!is_schema(v)) malformed(ptr, "'additionalProperties' must be a schema");
      k.additional = &v;
      typed("additionalProperties");
    } else if (key == "minProperties") {
      if (non_negative_integer(v, key, ptr) != 0) unsupported(key, ptr);
    } else if (key == "$ref") {
      if (!v.is_string()) malformed(ptr, "'$ref' must be a string");
      k.ref = &v;
      applicators.push_back("$ref");
    } else if (key == "anyOf" || key == "oneOf" || key == "allOf") {
      if (!v.is_array() || v.empty()) malformed(ptr, "'" + key + "' must be a non-empty array of schemas");
      for (const Json& s : v) {
        if (!is_schema(s)) malformed(ptr, "'" + key + "' must be a non-empty array of schemas");
      }
      if (key == "anyOf") {
        k.any_of = &v;
        applicators.push_back("anyOf");
      } else if (key == "oneOf") {
        k.one_of = &v;
        applicators.push_back("oneOf");
      } else {
        k.all_of = &v;
        applicators.push_back("allOf");
      }
    } else if (key == "$defs" || key == "definitions") {
      if (!v.is_object()) malformed(ptr, "'" + key + "' must be an object of schemas");
    } else if (key == "$id") {
      if (!is_root) unsupported("$id", ptr, "an identifier inside a subschema");
    } else if (const auto refused = refused_keyword(key)) {
      unsupported(*refused, ptr);  // the table's spelling, never the schema's text
    }
    // Anything else is an annotation (title, description, default, examples, $schema, $comment,
    // $anchor, deprecated, readOnly, writeOnly, content*, vendor extensions): it asserts nothing.
  }
  if (!first_typed.empty()) applicators.push_back(first_typed);
  if (applicators.size() > 1) {
    unsupported(applicators[1], ptr, "alongside '" + std::string(applicators[0]) + "'");
  }
  if (k.max_length && k.min_length > *k.max_length) malformed(ptr, "'minLength' is above 'maxLength'");
  if (k.max_items && k.min_items > *k.max_items) malformed(ptr, "'minItems' is above 'maxItems'");
  return k;
}

// ---- JSON values ----

long double number_value(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<long double>(v.get<int64_t>());
  return static_cast<long double>(v.get<double>());
}

bool json_equal(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (!a.is_number_float() && !b.is_number_float()) {
      const bool an = a.is_number_integer() && !a.is_number_unsigned() && a.get<int64_t>() < 0;
      const bool bn = b.is_number_integer() && !b.is_number_unsigned() && b.get<int64_t>() < 0;
      if (an != bn) return false;
      if (an) return a.get<int64_t>() == b.get<int64_t>();
      return a.get<uint64_t>() == b.get<uint64_t>();
    }
    return number_value(a) == number_value(b);
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !json_equal(it.value(), *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!json_equal(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

bool valid_utf8(std::string_view s) {
  return schema::decode_utf8_text(s).has_value();
}

// The compact JSON text of a value, members in document order. `breaks` (when given) receives the
// offsets just after each ',' and ':' between members and elements.
void serialize(const Json& v, std::string& out, const std::string& ptr,
               std::vector<size_t>* breaks = nullptr) {
  switch (v.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      return;
    case Json::value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      return;
    case Json::value_t::number_float: {
      const double d = v.get<double>();
      if (!std::isfinite(d)) malformed(ptr, "a number in 'enum' or 'const' is not finite");
      char buf[64];
      const auto res = std::to_chars(buf, buf + sizeof buf, d);
      out.append(buf, res.ptr);
      return;
    }
    case Json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (!valid_utf8(s)) malformed(ptr, "a string in 'enum' or 'const' is not valid UTF-8");
      append_json_string(out, s);
      return;
    }
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const Json& e : v) {
        if (!first) {
          out.push_back(',');
          if (breaks) breaks->push_back(out.size());
        }
        first = false;
        serialize(e, out, ptr, breaks);
      }
      out.push_back(']');
      return;
    }
    case Json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) {
          out.push_back(',');
          if (breaks) breaks->push_back(out.size());
        }
        first = false;
        if (!valid_utf8(it.key())) malformed(ptr, "a member name in 'enum' or 'const' is not valid UTF-8");
        append_json_string(out, it.key());
        out.push_back(':');
        if (breaks) breaks->push_back(out.size());
        serialize(it.value(), out, ptr, breaks);
      }
      out.push_back('}');
      return;
    }
    default:
      malformed(ptr, "'enum' and 'const' take JSON values");
  }
}

int depth_of(const Json& v, int limit) {
  if (limit < 0) return 0;
  int deepest = 0;
  if (v.is_object() || v.is_array()) {
    for (const Json& e : v) {
      deepest = std::max(deepest, depth_of(e, limit - 1));
      if (deepest > limit) break;
    }
    return deepest + 1;
  }
  return 0;
}

void check_document_depth(const Json& schema) {
  if (depth_of(schema, kMaxDocumentDepth) > kMaxDocumentDepth) {
    malformed("", "the schema document nests more than " + std::to_string(kMaxDocumentDepth) + " levels");
  }
}

Json to_ordered(const nlohmann::json& j, int depth) {
  if (depth > kMaxDocumentDepth) {
    malformed("", "the schema document nests more than " + std::to_string(kMaxDocumentDepth) + " levels");
  }
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return nullptr;
    case nlohmann::json::value_t::boolean:
      return j.get<bool>();
    case nlohmann::json::value_t::number_integer:
      return j.get<int64_t>();
    case nlohmann::json::value_t::number_unsigned:
      return j.get<uint64_t>();
    case nlohmann::json::value_t::number_float:
      return j.get<double>();
    case nlohmann::json::value_t::string:
      return j.get<std::string>();
    case nlohmann::json::value_t::array: {
      Json out = Json::array();
      for (const auto& e : j) out.push_back(to_ordered(e, depth + 1));
      return out;
    }
    case nlohmann::json::value_t::object: {
      Json out = Json::object();
      for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = to_ordered(it.value(), depth + 1);
      return out;
    }
    default:
      malformed("", "the schema holds a value that is not JSON");
  }
}

// ---- The compiler ----

// The canonical spelling of a code point inside a JSON string written by the compiler: itself,
// except '"', '\\' and the controls (\b \t \n \f \r, others \u00xx).
std::string json_spelling(char32_t c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case 0x08:
      return "\\b";
    case 0x09:
      return "\\t";
    case 0x0A:
      return "\\n";
    case 0x0C:
      return "\\f";
    case 0x0D:
      return "\\r";
    default: {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      return buf;
    }
  }
}

const CodeSet& raw_string_chars() {
  static const CodeSet set = [] {
    CodeSet special = CodeSet::range(0, 0x1F);
    special.add('"');
    special.add('\\');
    return special.complement();
  }();
  return set;
}

Item ws() {
  return Item::lit(" ").optional();
}

struct Pending {
  int rule;
  const Json* node;
  std::string ptr;
};

class Compiler {
 public:
  explicit Compiler(const Json& root) : root_(root) {}

  std::string run() {
    if (!is_schema(root_)) malformed("", "a schema must be an object or a boolean");
    const int root = target_rule(&root_, "", "");
    while (!pending_.empty()) {
      Pending p = std::move(pending_.front());
      pending_.pop_front();
      rules_.add_alternative(p.rule, {compile(*p.node, p.ptr, 0)});
    }
    return rules_.render(root, kMaxGrammarBytes);
  }

  std::string object_grammar() { return rules_.render(any_object_rule(), kMaxGrammarBytes); }

 private:
  // ---- Shared rules ----

  int shared(int& slot, std::string_view name, const std::function<void(int)>& define) {
    if (slot < 0) {
      slot = rules_.add(name, true);
      define(slot);
    }
    return slot;
  }

  Item never() { return Item::ref(rules_.add("never")); }

  int value_rule() {
    return shared(value_, "value", [&](int r) {
      rules_.add_alternative(r, {Item::ref(any_object_rule())});
      rules_.add_alternative(r, {Item::ref(any_array_rule())});
      rules_.add_alternative(r, {Item::ref(any_string_rule())});
      rules_.add_alternative(r, {Item::ref(number_rule())});
      rules_.add_alternative(r, {Item::ref(boolean_rule())});
      rules_.add_alternative(r, {Item::lit("null")});
    });
  }

  int any_object_rule() {
    return shared(any_object_, "object", [&](int r) {
      const int member = rules_.add("member", true);
      rules_.add_alternative(member,
                             {Item::ref(any_string_rule()), Item::lit(":"), ws(), Item::ref(value_rule())});
      const int more = rules_.rule_of("more-members", {Item::lit(","), ws(), Item::ref(member)});
      rules_.add_alternative(r, {Item::lit("{"), Item::ref(member),
                                 Item::ref(more).times(0, schema::kUnbounded), Item::lit("}")});
      rules_.add_alternative(r, {Item::lit("{}")});
    });
  }

  int any_array_rule() {
    return shared(any_array_, "array", [&](int r) {
      const int more = rules_.rule_of("more-values", {Item::lit(","), ws(), Item::ref(value_rule())});
      rules_.add_alternative(r, {Item::lit("["), Item::ref(value_rule()),
                                 Item::ref(more).times(0, schema::kUnbounded), Item::lit("]")});
      rules_.add_alternative(r, {Item::lit("[]")});
    });
  }

  int any_string_rule() {
    return shared(any_string_, "string", [&](int r) {
      rules_.add_alternative(
          r, {Item::lit("\""), Item::ref(char_rule()).times(0, schema::kUnbounded), Item::lit("\"")});
    });
  }

  // One code point of a JSON string in any spelling (a surrogate pair escape is one code point; a
  // lone surrogate escape is left out).
  int char_rule() {
    return shared(char_, "char", [&](int r) {
      const CodeSet hex = [] {
        CodeSet s = CodeSet::range('0', '9');
        s.add('a', 'f');
        s.add('A', 'F');
        return s;
      }();
      auto set_of = [](std::string_view chars) {
        CodeSet s;
        for (char c : chars) s.add(static_cast<char32_t>(c));
        return s;
      };
      const int hex4 = rules_.add("hex4", true);
      CodeSet first = set_of("0123456789abcABCefEF");
      rules_.add_alternative(hex4, {Item::chars(first), Item::chars(hex).times(3, 3)});
      rules_.add_alternative(
          hex4, {Item::chars(set_of("dD")), Item::chars(set_of("01234567")), Item::chars(hex).times(2, 2)});
      rules_.add_alternative(hex4, {Item::chars(set_of("dD")), Item::chars(set_of("89abAB")),
                                    Item::chars(hex).times(2, 2), Item::lit("\\u"), Item::chars(set_of("dD")),
                                    Item::chars(set_of("cdefCDEF")), Item::chars(hex).times(2, 2)});
      const int escape = rules_.add("escape", true);
      rules_.add_alternative(escape, {Item::chars(set_of("\"\\/bfnrt"))});
      rules_.add_alternative(escape, {Item::lit("u"), Item::ref(hex4)});
      rules_.add_alternative(r, {Item::chars(raw_string_chars())});
      rules_.add_alternative(r, {Item::lit("\\"), Item::ref(escape)});
    });
  }

  int integer_rule() {
    return shared(integer_, "integer", [&](int r) {
      rules_.add_alternative(r, {Item::lit("-").optional(), Item::ref(int_part_rule())});
    });
  }

  // The integer digits of a number: "0", or at most 195 digits without a leading zero (with the
  // two-digit exponent, every number stays within binary64 range: a parser reads it as finite).
  int int_part_rule() {
    return shared(int_part_, "int-part", [&](int r) {
      rules_.add_alternative(r, {Item::lit("0")});
      rules_.add_alternative(r, {Item::chars(CodeSet::range('1', '9')), Item::ref(more_digits_rule())});
    });
  }

  // 0 to 194 digits: up to 12 blocks of 15, then up to 14 (few rules once parse_grammar expands it).
  int more_digits_rule() {
    return shared(more_digits_, "more-digits", [&](int r) {
      const int block = rules_.rule_of("digit-block", {Item::chars(CodeSet::range('0', '9')).times(15, 15)});
      rules_.add_alternative(
          r, {Item::ref(block).times(0, 12), Item::chars(CodeSet::range('0', '9')).times(0, 14)});
    });
  }

  int fraction_rule() {
    return shared(fraction_, "fraction", [&](int r) {
      rules_.add_alternative(
          r, {Item::lit("."), Item::chars(CodeSet::range('0', '9')).times(1, schema::kUnbounded)});
    });
  }

  int number_rule() {
    return shared(number_, "number", [&](int r) {
      CodeSet e = CodeSet::single('e');
      e.add('E');
      CodeSet sign = CodeSet::single('-');
      sign.add('+');
      const int exponent = rules_.rule_of("exponent", {Item::chars(e), Item::chars(sign).optional(),
                                                       Item::chars(CodeSet::range('0', '9')).times(1, 2)});
      rules_.add_alternative(r, {Item::ref(integer_rule()), Item::ref(fraction_rule()).optional(),
                                 Item::ref(exponent).optional()});
    });
  }

  int boolean_rule() {
    return shared(boolean_, "boolean", [&](int r) {
      rules_.add_alternative(r, {Item::lit("true")});
      rules_.add_alternative(r, {Item::lit("false")});
    });
  }

  // ---- Automata as rules ----

  // A code point of `set`, each spelled canonically (json_spelling for the specials).
  Item canonical_char(const CodeSet& set) {
    const CodeSet raw = set.intersection(raw_string_chars());
    const CodeSet special = set.difference(raw_string_chars());
    if (special.empty()) return Item::chars(raw);
    auto it = char_rules_.find(set);
    if (it != char_rules_.end()) return Item::ref(it->second);
    const int r = rules_.add("chars");
    if (!raw.empty()) rules_.add_alternative(r, {Item::chars(raw)});
    for (const CodeSet::Range& range : special.ranges()) {
      for (char32_t c = range.lo; c <= range.hi; ++c)
        rules_.add_alternative(r, {Item::lit(json_spelling(c))});
    }
    char_rules_.emplace(set, r);
    return Item::ref(r);
  }

  // A JSON string whose content the DFA accepts: one rule per state, the closing quote where it
  // accepts.
  Item string_of(const Dfa& dfa, const std::string& ptr) {
    if (dfa.empty()) return never();
    if (rules_.size() + dfa.states.size() > kMaxBuiltRules) too_large(ptr);
    std::vector<int> ids(dfa.states.size());
    for (int& id : ids) id = rules_.add("str");
    for (size_t s = 0; s < dfa.states.size(); ++s) {
      for (const Dfa::Edge& e : dfa.states[s].edges) {
        rules_.add_alternative(ids[s], {canonical_char(e.set), Item::ref(ids[e.target])});
      }
      if (dfa.states[s].accepting) rules_.add_alternative(ids[s], {Item::lit("\"")});
    }
    return Item::ref(rules_.rule_of("string", {Item::lit("\""), Item::ref(ids[0])}));
  }

  // The words of the DFA as they are (numbers).
  Item plain_of(const Dfa& dfa, const std::string& ptr) {
    if (dfa.empty()) return never();
    if (rules_.size() + dfa.states.size() > kMaxBuiltRules) too_large(ptr);
    std::vector<int> ids(dfa.states.size());
    for (int& id : ids) id = rules_.add("num");
    for (size_t s = 0; s < dfa.states.size(); ++s) {
      for (const Dfa::Edge& e : dfa.states[s].edges) {
        rules_.add_alternative(ids[s], {Item::chars(e.set), Item::ref(ids[e.target])});
      }
      if (dfa.states[s].accepting) rules_.add_alternative(ids[s], {});
    }
    return Item::ref(ids[0]);
  }

  // ---- $ref ----

  struct Target {
    const Json* node;
    std::string key;  // the pointer, RFC 6901 escaped (unique per location)
    std::string ptr;  // the pointer for messages
  };

  Target resolve(const Json& ref, const std::string& ptr) {
    const auto& text = ref.get_ref<const std::string&>();
    if (text.empty() || text[0] != '#') unsupported("$ref", ptr, "a reference outside the schema document");
    // The fragment, percent-decoded.
    std::string fragment;
    for (size_t i = 1; i < text.size(); ++i) {
      if (text[i] != '%') {
        fragment.push_back(text[i]);
        continue;
      }
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      if (i + 2 >= text.size()) malformed(ptr, "'$ref' has a malformed percent-escape");
      const int a = hex(text[i + 1]);
      const int b = hex(text[i + 2]);
      if (a < 0 || b < 0) malformed(ptr, "'$ref' has a malformed percent-escape");
      fragment.push_back(static_cast<char>(a * 16 + b));
      i += 2;
    }
    if (!fragment.empty() && fragment[0] != '/') unsupported("$ref", ptr, "a reference to an anchor");
    const Json* node = &root_;
    Target t;
    size_t pos = 0;
    while (pos < fragment.size()) {
      const size_t next = fragment.find('/', pos + 1);
      const std::string_view raw = std::string_view(fragment).substr(
          pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
      std::string name;
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '~') {
          name.push_back(raw[i]);
          continue;
        }
        if (i + 1 < raw.size() && raw[i + 1] == '0') {
          name.push_back('~');
        } else if (i + 1 < raw.size() && raw[i + 1] == '1') {
          name.push_back('/');
        } else {
          malformed(ptr, "'$ref' is not a valid JSON pointer");
        }
        ++i;
      }
      if (node->is_object()) {
        auto it = node->find(name);
        if (it == node->end()) malformed(ptr, "'$ref' does not resolve to a location in the schema");
        node = &*it;
      } else if (node->is_array()) {
        size_t index = 0;
        const bool digits =
            !name.empty() && name.size() < 10 &&
            std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
            (name.size() == 1 || name[0] != '0');
        if (digits) index = std::stoul(name);
        if (!digits || index >= node->size())
          malformed(ptr, "'$ref' does not resolve to a location in the schema");
        node = &(*node)[index];
      } else {
        malformed(ptr, "'$ref' does not resolve to a location in the schema");
      }
      t.key += "/" + std::string(raw);
      t.ptr += "/" + segment(name);
      pos = next == std::string::npos ? fragment.size() : next;
    }
    if (!is_schema(*node)) malformed(ptr, "'$ref' does not resolve to a schema");
    t.node = node;
    return t;
  }

  int target_rule(const Json* node, const std::string& key, const std::string& ptr) {
    auto it = targets_.find(key);
    if (it != targets_.end()) return it->second;
    const int r = rules_.add("def");
    targets_.emplace(key, r);
    pending_.push_back({r, node, ptr});
    return r;
  }

  // ---- Schemas ----

  Item compile(const Json& node, const std::string& ptr, int depth) {
    if (rules_.size() > kMaxBuiltRules) too_large(ptr);
    if (depth > kMaxSchemaDepth)
      malformed(ptr, "subschemas nest more than " + std::to_string(kMaxSchemaDepth) + " levels");
    if (node.is_boolean()) return node.get<bool>() ? Item::ref(value_rule()) : never();
    if (!node.is_object()) malformed(ptr, "a schema must be an object or a boolean");
    const Keywords k = read_keywords(node, ptr, &node == &root_);
    if (k.enum_values || k.const_value) return compile_enum(k);
    if (k.ref) {
      const Target t = resolve(*k.ref, ptr);
      return Item::ref(target_rule(t.node, t.key, t.ptr));
    }
    if (k.any_of || k.one_of) {
      const Json& list = k.any_of ? *k.any_of : *k.one_of;
      const std::string base = ptr + (k.any_of ? "/anyOf/" : "/oneOf/");
      const int r = rules_.add("any-of");
      for (size_t i = 0; i < list.size(); ++i) {
        rules_.add_alternative(r, {compile(list[i], base + std::to_string(i), depth + 1)});
      }
      return Item::ref(r);
    }
    if (k.all_of) {
      if (k.all_of->size() != 1) unsupported("allOf", ptr, "more than one subschema");
      return compile((*k.all_of)[0], ptr + "/allOf/0", depth + 1);
    }
    return compile_typed(k, depth);
  }

  Item compile_enum(const Keywords& k) {
    Json single = Json::array();
    const Json* values = k.enum_values;
    if (k.const_value) {
      single.push_back(*k.const_value);
      values = &single;
    }
    const int r = rules_.add("enum");
    std::set<std::string> seen;
    for (const Json& v : *values) {
      if (!satisfies(v, *k.node, k.ptr, 0)) continue;
      std::string text;
      std::vector<size_t> breaks;
      serialize(v, text, k.ptr, &breaks);
      if (!seen.insert(text).second) continue;
      // The compact text, with the optional space after each separator.
      Sequence seq;
      size_t from = 0;
      for (size_t at : breaks) {
        seq.push_back(Item::lit(text.substr(from, at - from)));
        seq.push_back(ws());
        from = at;
      }
      seq.push_back(Item::lit(text.substr(from)));
      rules_.add_alternative(r, std::move(seq));
    }
    return Item::ref(r);
  }

  Item compile_typed(const Keywords& k, int depth) {
    if (!k.has_type && !k.type_specific) return Item::ref(value_rule());
    unsigned types = k.types;
    if (k.has_type && k.nullable) types |= kNull;
    if (types & kNumber) types &= ~static_cast<unsigned>(kInteger);
    std::vector<Item> alts;
    if (types & kString) alts.push_back(compile_string(k));
    if (types & kNumber) alts.push_back(compile_number(k, false));
    if (types & kInteger) alts.push_back(compile_number(k, true));
    if (types & kObject) alts.push_back(compile_object(k, depth));
    if (types & kArray) alts.push_back(compile_array(k, depth));
    if (types & kBoolean) alts.push_back(Item::ref(boolean_rule()));
    if (types & kNull) alts.push_back(Item::lit("null"));
    if (alts.size() == 1) return alts.front();
    const int r = rules_.add("alt");
    for (Item& it : alts) rules_.add_alternative(r, {std::move(it)});
    return Item::ref(r);
  }

  const Dfa& pattern_of(const Keywords& k) {
    auto it = patterns_.find(k.pattern);
    if (it != patterns_.end()) return it->second;
    Dfa dfa;
    try {
      dfa = schema::pattern_dfa(k.pattern->get_ref<const std::string&>(), kMaxAutomatonStates);
    } catch (const schema::RegexError& e) {
      const std::string detail = e.detail + " at code point " + std::to_string(e.offset);
      if (e.unsupported) unsupported("pattern", k.ptr, detail);
      malformed(k.ptr, "'pattern' is not a valid regular expression: " + detail);
    }
    return patterns_.emplace(k.pattern, std::move(dfa)).first->second;
  }

  const Dfa& format_of(const Keywords& k) {
    const auto& name = k.format->get_ref<const std::string&>();
    auto it = formats_.find(name);
    if (it != formats_.end()) return it->second;
    auto dfa = schema::format_dfa(name);
    if (!dfa) {
      if (is_specified_format(name)) unsupported("format", k.ptr, "format '" + name + "'");
      unsupported("format", k.ptr, "an unknown format");
    }
    return formats_.emplace(name, std::move(*dfa)).first->second;
  }

  Item compile_string(const Keywords& k) {
    if (!k.pattern && !k.format) {
      if (k.min_length == 0 && !k.max_length) return Item::ref(any_string_rule());
      Sequence seq{Item::lit("\"")};
      for (Item& it : rules_.repeat(Item::ref(char_rule()), k.min_length, k.max_length))
        seq.push_back(std::move(it));
      seq.push_back(Item::lit("\""));
      return Item::ref(rules_.rule_of("string", std::move(seq)));
    }
    try {
      Dfa dfa;
      if (k.pattern && k.format) {
        dfa = schema::intersect(pattern_of(k), format_of(k), kMaxAutomatonStates);
      } else {
        dfa = k.pattern ? pattern_of(k) : format_of(k);
      }
      dfa = schema::minimize(schema::bound_length(dfa, k.min_length, k.max_length, kMaxAutomatonStates));
      return string_of(dfa, k.ptr);
    } catch (const schema::AutomatonTooLarge&) {
      too_large(k.ptr);
    }
  }

  // The stricter of an inclusive and an exclusive bound (lower when `lower`).
  static std::optional<DecimalBound> bound_of(const Json* inclusive, const Json* exclusive, bool lower) {
    const Json* pick = inclusive;
    bool is_exclusive = false;
    if (exclusive) {
      const long double e = number_value(*exclusive);
      if (!inclusive || (lower ? e >= number_value(*inclusive) : e <= number_value(*inclusive))) {
        pick = exclusive;
        is_exclusive = true;
      }
    }
    if (!pick) return std::nullopt;
    DecimalBound d;
    if (pick->is_number_unsigned()) {
      d = schema::decimal_of(pick->get<uint64_t>());
    } else if (pick->is_number_integer()) {
      d = schema::decimal_of(pick->get<int64_t>());
    } else {
      d = schema::decimal_of(pick->get<double>());
    }
    d.exclusive = is_exclusive;
    return d;
  }

  Item compile_number(const Keywords& k, bool integer) {
    const auto lower = bound_of(k.minimum, k.exclusive_minimum, true);
    const auto upper = bound_of(k.maximum, k.exclusive_maximum, false);
    if (!lower && !upper) return Item::ref(integer ? integer_rule() : number_rule());
    schema::NumberRange range;
    try {
      range = schema::number_range(integer, lower, upper, kMaxAutomatonStates);
    } catch (const schema::AutomatonTooLarge&) {
      too_large(k.ptr);
    }
    const int r = rules_.add("range");
    rules_.add_alternative(r, {plain_of(range.dfa, k.ptr)});
    // Magnitudes longer than the automaton's: in range, written with at most 294 integer digits
    // (none when the bound itself has 100 digits or more).
    auto add_long = [&](std::optional<uint32_t> digits, bool negative) {
      if (!digits || *digits >= 100) return;
      Sequence seq;
      if (negative) seq.push_back(Item::lit("-"));
      seq.push_back(Item::chars(CodeSet::range('1', '9')));
      seq.push_back(Item::chars(CodeSet::range('0', '9')).times(*digits, *digits));
      seq.push_back(Item::ref(more_digits_rule()));
      if (!integer) seq.push_back(Item::ref(fraction_rule()).optional());
      rules_.add_alternative(r, std::move(seq));
    };
    add_long(range.long_nonneg, false);
    add_long(range.long_negative, true);
    return Item::ref(r);
  }

  Item compile_array(const Keywords& k, int depth) {
    const std::string& ptr = k.ptr;
    std::vector<Item> prefix;
    if (k.prefix_items) {
      for (size_t i = 0; i < k.prefix_items->size(); ++i) {
        prefix.push_back(compile((*k.prefix_items)[i], ptr + "/prefixItems/" + std::to_string(i), depth + 1));
      }
    }
    const uint64_t pk = prefix.size();
    const bool items_false = k.items && k.items->is_boolean() && !k.items->get<bool>();
    Item item = k.items ? (items_false ? never() : compile(*k.items, ptr + "/items", depth + 1))
                        : Item::ref(value_rule());
    uint64_t m = k.min_items;
    std::optional<uint64_t> max = k.max_items;
    if (items_false) max = std::min(max.value_or(pk), pk);
    if (k.unique_items && (!max || *max > 1)) unsupported("uniqueItems", ptr);
    if (!k.items && pk == 0 && m == 0 && !max) return Item::ref(any_array_rule());
    if (max && m > *max) return never();
    if (max && *max == 0) return Item::lit("[]");
    // The continuation after i elements when i >= pk: more `items`, separated by commas.
    auto items_tail = [&](uint64_t i) -> Sequence {
      if (max && *max <= i) return {};
      const uint64_t lo = m > i ? m - i : 0;
      std::optional<uint64_t> hi;
      if (max) hi = *max - i;
      if (items_false) return lo > 0 ? Sequence{never()} : Sequence{};
      const int sep = rules_.rule_of("more-items", {Item::lit(","), ws(), item});
      return rules_.repeat(Item::ref(sep), lo, hi);
    };
    const uint64_t start = std::max<uint64_t>(pk, 1);
    Sequence cont = items_tail(start);
    for (uint64_t i = start - 1; i >= 1; --i) {
      if (max && *max <= i) {
        cont.clear();
        continue;
      }
      Sequence seq{Item::lit(","), ws(), prefix[i]};
      for (Item& it : cont) seq.push_back(std::move(it));
      Item next = Item::ref(rules_.rule_of("prefix-items", std::move(seq)));
      if (i >= m) next.optional();
      cont = {next};
    }
    Sequence body{Item::lit("["), pk > 0 ? prefix[0] : item};
    for (Item& it : cont) body.push_back(std::move(it));
    body.push_back(Item::lit("]"));
    const int r = rules_.rule_of("array", std::move(body));
    if (m == 0) rules_.add_alternative(r, {Item::lit("[]")});
    return Item::ref(r);
  }

  // The names of declared members, spelled canonically: a key an additional member may not take.
  Dfa excluded_names(const std::vector<std::u32string>& names) {
    struct Node {
      std::map<char32_t, int> kids;
      bool terminal = false;
    };
    std::vector<Node> trie(1);
    for (const std::u32string& name : names) {
      int at = 0;
      for (char32_t c : name) {
        auto it = trie[at].kids.find(c);
        if (it == trie[at].kids.end()) {
          trie.emplace_back();
          it = trie[at].kids.emplace(c, static_cast<int>(trie.size() - 1)).first;
        }
        at = it->second;
      }
      trie[at].terminal = true;
    }
    Dfa dfa;
    dfa.states.resize(trie.size() + 1);
    const int free = static_cast<int>(trie.size());
    dfa.states[free].accepting = true;
    dfa.states[free].edges.push_back({CodeSet::universe(), free});
    for (size_t s = 0; s < trie.size(); ++s) {
      CodeSet used;
      for (const auto& [c, t] : trie[s].kids) {
        dfa.states[s].edges.push_back({CodeSet::single(c), t});
        used.add(c);
      }
      CodeSet other = used.complement();
      if (!other.empty()) dfa.states[s].edges.push_back({std::move(other), free});
      dfa.states[s].accepting = !trie[s].terminal;
    }
    return schema::minimize(dfa);
  }

  Item compile_object(const Keywords& k, int depth) {
    const std::string& ptr = k.ptr;
    enum class Extra { kAbsent, kNone, kAny, kSchema } extra = Extra::kAbsent;
    std::optional<Item> extra_value;
    if (k.additional) {
      if (k.additional->is_boolean()) {
        extra = k.additional->get<bool>() ? Extra::kAny : Extra::kNone;
      } else {
        extra = Extra::kSchema;
        extra_value = compile(*k.additional, ptr + "/additionalProperties", depth + 1);
      }
    }
    if (extra == Extra::kAny || extra == Extra::kAbsent) extra_value = Item::ref(value_rule());
    if (!k.properties && !k.required) {
      if (extra == Extra::kAbsent || extra == Extra::kAny) return Item::ref(any_object_rule());
      if (extra == Extra::kNone) return Item::lit("{}");
      const int member =
          rules_.rule_of("member", {Item::ref(any_string_rule()), Item::lit(":"), ws(), *extra_value});
      const int more = rules_.rule_of("more-members", {Item::lit(","), ws(), Item::ref(member)});
      const int r = rules_.rule_of("object", {Item::lit("{"), Item::ref(member),
                                              Item::ref(more).times(0, schema::kUnbounded), Item::lit("}")});
      rules_.add_alternative(r, {Item::lit("{}")});
      return Item::ref(r);
    }
    struct Member {
      std::string name;
      Item value;
      bool required;
    };
    std::vector<Member> members;
    std::set<std::string> required;
    std::vector<std::string> required_order;
    if (k.required) {
      for (const Json& name : *k.required) {
        if (required.insert(name.get<std::string>()).second)
          required_order.push_back(name.get<std::string>());
      }
    }
    std::set<std::string> declared;
    if (k.properties) {
      for (auto it = k.properties->begin(); it != k.properties->end(); ++it) {
        const std::string& name = it.key();
        declared.insert(name);
        members.push_back({name, compile(it.value(), ptr + "/properties/" + segment(name), depth + 1),
                           required.contains(name)});
      }
    }
    for (const std::string& name : required_order) {
      if (declared.contains(name)) continue;
      members.push_back({name, extra == Extra::kNone ? never() : *extra_value, true});
    }
    const bool open = extra == Extra::kAny || extra == Extra::kSchema;
    std::vector<std::u32string> names;
    for (const Member& mbr : members) {
      auto decoded = schema::decode_utf8_text(mbr.name);
      if (!decoded) malformed(ptr, "a property name is not valid UTF-8");
      names.push_back(std::move(*decoded));
    }
    // Additional members: a name that is not declared, then a value.
    int more_extra = -1;
    int extra_member = -1;
    if (open) {
      Item key;
      try {
        key = string_of(excluded_names(names), ptr);
      } catch (const schema::AutomatonTooLarge&) {
        too_large(ptr);
      }
      extra_member = rules_.rule_of("member", {key, Item::lit(":"), ws(), *extra_value});
      more_extra = rules_.rule_of("more-members", {Item::lit(","), ws(), Item::ref(extra_member)});
    }
    // tail(i): what may follow once a member was written, members i.. to come; head(i): the
    // members from i on when none was written yet.
    const int last_tail = rules_.add("tail");
    const int last_head = rules_.add("head");
    if (open) {
      rules_.add_alternative(last_tail, {Item::ref(more_extra).times(0, schema::kUnbounded)});
      rules_.add_alternative(last_head,
                             {Item::ref(extra_member), Item::ref(more_extra).times(0, schema::kUnbounded)});
    } else {
      rules_.add_alternative(last_tail, {});
    }
    rules_.add_alternative(last_head, {});
    int tail = last_tail;
    int head = last_head;
    for (size_t i = members.size(); i-- > 0;) {
      const Member& mbr = members[i];
      std::string key;
      append_json_string(key, mbr.name);
      key.push_back(':');
      const Sequence kv{Item::lit(key), ws(), mbr.value};
      const int h = rules_.add("head");
      Sequence first = kv;
      first.push_back(Item::ref(tail));
      rules_.add_alternative(h, std::move(first));
      if (!mbr.required) rules_.add_alternative(h, {Item::ref(head)});
      Sequence piece{Item::lit(","), ws()};
      for (const Item& it : kv) piece.push_back(it);
      Sequence t_seq;
      if (mbr.required) {
        t_seq = std::move(piece);
      } else {
        t_seq = {Item::ref(rules_.rule_of("member", std::move(piece))).optional()};
      }
      t_seq.push_back(Item::ref(tail));
      tail = rules_.rule_of("tail", std::move(t_seq));
      head = h;
    }
    return Item::ref(rules_.rule_of("object", {Item::lit("{"), Item::ref(head), Item::lit("}")}));
  }

  // ---- Checking enum / const values against the rest of the schema ----

  bool satisfies(const Json& v, const Json& node, const std::string& ptr, int depth) {
    if (++validation_steps_ > kMaxValidationSteps || depth > kMaxDocumentDepth) {
      malformed(ptr, "the schema is too complex to check its 'enum' or 'const' values");
    }
    if (node.is_boolean()) return node.get<bool>();
    if (!node.is_object()) malformed(ptr, "a schema must be an object or a boolean");
    const Keywords k = read_keywords(node, ptr, &node == &root_);
    if (k.const_value && !json_equal(v, *k.const_value)) return false;
    if (k.enum_values) {
      bool found = false;
      for (const Json& e : *k.enum_values) found = found || json_equal(v, e);
      if (!found) return false;
    }
    if (k.ref) {
      const Target t = resolve(*k.ref, ptr);
      return satisfies(v, *t.node, t.ptr, depth + 1);
    }
    if (k.any_of || k.one_of) {
      const Json& list = k.any_of ? *k.any_of : *k.one_of;
      const std::string base = ptr + (k.any_of ? "/anyOf/" : "/oneOf/");
      size_t count = 0;
      for (size_t i = 0; i < list.size(); ++i) {
        if (satisfies(v, list[i], base + std::to_string(i), depth + 1)) ++count;
      }
      return k.any_of ? count > 0 : count == 1;
    }
    if (k.all_of) {
      for (size_t i = 0; i < k.all_of->size(); ++i) {
        if (!satisfies(v, (*k.all_of)[i], ptr + "/allOf/" + std::to_string(i), depth + 1)) return false;
      }
      return true;
    }
    unsigned types = k.types;
    if (k.has_type && k.nullable) types |= kNull;
    unsigned have = 0;
    switch (v.type()) {
      case Json::value_t::null:
        have = kNull;
        break;
      case Json::value_t::boolean:
        have = kBoolean;
        break;
      case Json::value_t::object:
        have = kObject;
        break;
      case Json::value_t::array:
        have = kArray;
        break;
      case Json::value_t::string:
        have = kString;
        break;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
        have = kNumber | kInteger;
        break;
      case Json::value_t::number_float: {
        const double d = v.get<double>();
        have = (std::isfinite(d) && std::floor(d) == d) ? (kNumber | kInteger) : kNumber;
        break;
      }
      default:
        return false;
    }
    if ((types & have) == 0) return false;
    if (v.is_string()) {
      const auto text = schema::decode_utf8_text(v.get_ref<const std::string&>());
      if (!text) malformed(ptr, "a string in 'enum' or 'const' is not valid UTF-8");
      if (text->size() < k.min_length || (k.max_length && text->size() > *k.max_length)) return false;
      if (k.pattern && !schema::matches(pattern_of(k), *text)) return false;
      if (k.format && !schema::matches(format_of(k), *text)) return false;
    } else if (v.is_number()) {
      const long double x = number_value(v);
      if (k.minimum && x < number_value(*k.minimum)) return false;
      if (k.maximum && x > number_value(*k.maximum)) return false;
      if (k.exclusive_minimum && x <= number_value(*k.exclusive_minimum)) return false;
      if (k.exclusive_maximum && x >= number_value(*k.exclusive_maximum)) return false;
    } else if (v.is_array()) {
      if (v.size() < k.min_items || (k.max_items && v.size() > *k.max_items)) return false;
      if (k.unique_items) {
        for (size_t i = 0; i < v.size(); ++i) {
          for (size_t j = i + 1; j < v.size(); ++j) {
            if (json_equal(v[i], v[j])) return false;
          }
        }
      }
      const size_t pk = k.prefix_items ? k.prefix_items->size() : 0;
      for (size_t i = 0; i < v.size(); ++i) {
        if (i < pk) {
          if (!satisfies(v[i], (*k.prefix_items)[i], ptr + "/prefixItems/" + std::to_string(i), depth + 1))
            return false;
        } else if (k.items && !satisfies(v[i], *k.items, ptr + "/items", depth + 1)) {
          return false;
        }
      }
    } else if (v.is_object()) {
      if (k.required) {
        for (const Json& name : *k.required) {
          if (!v.contains(name.get<std::string>())) return false;
        }
      }
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (k.properties) {
          auto p = k.properties->find(it.key());
          if (p != k.properties->end()) {
            if (!satisfies(it.value(), *p, ptr + "/properties/" + segment(it.key()), depth + 1)) return false;
            continue;
          }
        }
        if (k.additional && !satisfies(it.value(), *k.additional, ptr + "/additionalProperties", depth + 1)) {
          return false;
        }
      }
    }
    return true;
  }

  const Json& root_;
  Rules rules_;
  std::map<std::string, int> targets_;
  std::deque<Pending> pending_;
  std::map<CodeSet, int> char_rules_;
  std::map<const Json*, Dfa> patterns_;
  std::map<std::string, Dfa, std::less<>> formats_;
  uint64_t validation_steps_ = 0;
  int value_ = -1;
  int any_object_ = -1;
  int any_array_ = -1;
  int any_string_ = -1;
  int char_ = -1;
  int integer_ = -1;
  int int_part_ = -1;
  int more_digits_ = -1;
  int fraction_ = -1;
  int number_ = -1;
  int boolean_ = -1;
};

}  // namespace

namespace {

// The schema as compact JSON text is at most kMaxSchemaBytes (compiling is linear in it at best).
template <typename J>
void check_schema_size(const J& schema) {
  if (schema.dump(-1, ' ', false, J::error_handler_t::replace).size() > kMaxSchemaBytes) {
    throw Error(codes::kInvalidRequest,
                "the schema is larger than " + std::to_string(kMaxSchemaBytes / 1024) + " KiB of JSON");
  }
}

}  // namespace

std::string json_schema_to_grammar(const nlohmann::ordered_json& schema) {
  check_document_depth(schema);
  check_schema_size(schema);
  Compiler compiler(schema);
  return compiler.run();
}

std::string json_schema_to_grammar(const nlohmann::json& schema) {
  const Json ordered = to_ordered(schema, 0);
  check_schema_size(ordered);
  Compiler compiler(ordered);
  return compiler.run();
}

std::string json_object_grammar() {
  static const std::string grammar = [] {
    const Json none;
    Compiler compiler(none);
    return compiler.object_grammar();
  }();
  return grammar;
}

}  // namespace a3s::power::grammar

// JSON text exactly as Python's `json.dumps(value, ensure_ascii=False, indent=indent)` writes it —
// what the `tojson` filter of transformers' chat-template environment produces.
//
// Format (CPython json module): separators ", " and ": " without indent; with an indent, items on
// their own lines, "," at line ends and ": " after keys; empty lists and dicts stay "[]" and "{}".
// Strings escape '"', '\\', \n \r \t \b \f and other code points below U+0020 as \u00XX; every
// other character (including non-ASCII and U+007F) is written as is. Floats use repr(float)
// ("1.0", "1e-05"), non-finite floats "NaN", "Infinity", "-Infinity". Keys keep the order of the
// ordered_json object.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace a3s::power::chat::py {

std::string dumps(const nlohmann::ordered_json& value, std::optional<int> indent = std::nullopt);

// The other json.dumps arguments that transformers' `tojson` forwards. Separators default as in
// Python: (", ", ": ") without an indent, (",", ": ") with one. sort_keys orders object keys by code
// point; ensure_ascii writes every non-ASCII character as \uXXXX (a surrogate pair above U+FFFF).
struct DumpsOptions {
  std::optional<int> indent;
  std::optional<std::pair<std::string, std::string>> separators;  // item, key
  bool sort_keys = false;
  bool ensure_ascii = false;
};
std::string dumps(const nlohmann::ordered_json& value, const DumpsOptions& options);

}  // namespace a3s::power::chat::py

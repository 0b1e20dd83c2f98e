// Python value semantics that chat templates rely on, for JSON values.
//
// Jinja2 evaluates template expressions with Python objects: `{{ x }}` prints str(x), `+` is Python
// addition (and raises TypeError for str + None), `|trim` is str.strip(), `|string` is str(), `==`
// is Python equality (1 == 1.0 == True). A missing key is a Jinja Undefined: it prints as "", is
// falsy and iterates as empty, but raises UndefinedError when added to a string. These helpers
// reproduce exactly those behaviours for values of a JSON document (None/bool/int/float/str/list/
// dict), including the exception text Python would show, so that a renderer can fail with the same
// message as the reference (Python Jinja2 3.1, CPython 3 `str`, `repr`, `str.strip`).
//
// Errors: the raise_* helpers throw a3s::power::Error(codes::kInvalidRequest) whose message is the
// Python exception as "<Type>: <message>" (e.g. "TypeError: can only concatenate str (not
// \"NoneType\") to str"). No message ever contains a value, only type and key names.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace a3s::power::chat::py {

using Json = nlohmann::ordered_json;

// A template value: a JSON value, or Undefined (null pointer) with the text Jinja would report.
struct Ref {
  const Json* value = nullptr;
  std::string undefined_hint;  // e.g. "'dict object' has no attribute 'content'"

  bool defined() const { return value != nullptr; }
  const Json& operator*() const { return *value; }
  const Json* operator->() const { return value; }
};

// `obj.key` / `obj['key']` with Jinja's lookup rules for dicts; anything else is Undefined.
Ref attr(const Json& obj, std::string_view key);
Ref attr(const Ref& obj, std::string_view key);  // attribute of Undefined → raise_undefined
Ref defined(const Json& value);                  // wraps a value that exists

// Python type name: "NoneType", "bool", "int", "float", "str", "list", "dict".
std::string type_name(const Json& v);

// str(v): strings unchanged, None → "None", True → "True", floats as repr(float), lists and
// dicts as their repr. Undefined prints as "" (what `{{ undefined }}` shows).
std::string str(const Json& v);
std::string str(const Ref& v);
// repr(v) (strings quoted the way CPython does).
std::string repr(const Json& v);
// repr(float): shortest round-trip digits, exponent form below 1e-4 and from 1e16.
std::string float_repr(double d);

// bool(v): None, False, 0, 0.0, "", [], {} and Undefined are false.
bool truthy(const Json& v);
bool truthy(const Ref& v);

// Python ==, with 1 == 1.0 == True.
bool equal(const Json& a, const Json& b);
// len(v): code points of a str, items of a list or dict; Undefined → 0. Other types raise TypeError.
std::size_t length(const Json& v);
std::size_t length(const Ref& v);
// Python `needle in haystack` for a str needle: substring of a str, element of a list, key of a
// dict. Undefined haystack → false. Other haystacks raise TypeError.
bool contains(const Ref& haystack, const Json& needle);

// str.strip() with Python's notion of whitespace (str.isspace), on UTF-8 text.
std::string strip(std::string_view s);
// Jinja `|trim`: str(v).strip().
std::string trim(const Ref& v);
// Number of code points in UTF-8 text.
std::size_t code_points(std::string_view s);

// `s + v` where s is a str: appends v if it is a str; otherwise raises what Python raises.
void append(std::string& s, const Ref& v);
void append(std::string& s, const Json& v);
// `v + ...` where v is the left operand of an addition whose right operand has type right_type:
// returns v's text if it is a str; otherwise raises what Python raises.
std::string left_operand(const Ref& v, std::string_view right_type = "str");

// Checks that v can be iterated by `{% for %}` (Undefined iterates as empty); raises TypeError
// for None, bool and numbers.
void require_iterable(const Ref& v);

[[noreturn]] void raise_template_error(std::string_view message);  // raise_exception(message)
[[noreturn]] void raise_type_error(std::string_view message);
[[noreturn]] void raise_undefined(std::string_view hint);

}  // namespace a3s::power::chat::py

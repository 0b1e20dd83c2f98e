// Template values of the Jinja interpreter: Python's value model as Jinja2 sees it (Undefined,
// None, bool, int, float, str, list, tuple, dict, namespace, callables), with caller-span tracking.
//
// Caller spans: every str value carries the [begin, end) byte ranges of its text that come from a
// caller-supplied string (messages, tools, and any other variable the caller marks). Template
// literals carry none. The rule, applied by every operation:
//   - concatenation (`~`, `+`, join, block capture, macro output) keeps each part's spans, shifted;
//   - slicing and stripping (trim, strip/lstrip/rstrip, [a:b], split parts) keep the spans' overlap
//     with the part kept;
//   - any other string transformation (upper, lower, title, capitalize, replace, format, tojson,
//     str() of a list or dict, indent, …) marks its whole result when any input was marked;
//   - a dict key from a caller dict is a marked str.
// So caller text never loses its mark, and only the template's own literals are unmarked.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace a3s::power::chat::jinja {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool operator==(const Span&) const = default;
};
using Spans = std::vector<Span>;

// Text with its caller spans (sorted, non-overlapping, non-empty, merged when adjacent).
struct Text {
  std::string text;
  Spans spans;

  void append(std::string_view s) { text += s; }
  void append(const Text& t);
  void append_marked(std::string_view s);  // caller text
  bool marked() const { return !spans.empty(); }
  // The part [begin, end) of the bytes, with the spans' overlap.
  Text substr(std::size_t begin, std::size_t end) const;
};

class Interpreter;
struct Value;
using List = std::vector<Value>;
struct Dict;
struct Args;

using NativeFn = std::function<Value(Interpreter&, Args&)>;

struct Callable {
  std::string name;
  NativeFn fn;
};

struct Value {
  enum class Kind { kUndefined, kNone, kBool, kInt, kFloat, kStr, kList, kTuple, kDict, kNamespace, kCallable };
  Kind kind = Kind::kUndefined;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  Text s;  // kStr: the text; kUndefined: s.text is the hint ("'x' is undefined")
  std::shared_ptr<List> list;          // kList, kTuple
  std::shared_ptr<Dict> dict;          // kDict, kNamespace
  std::shared_ptr<Callable> callable;  // kCallable

  static Value undefined(std::string hint);
  static Value none();
  static Value boolean(bool v);
  static Value integer(std::int64_t v);
  static Value floating(double v);
  static Value str(std::string v);
  static Value str(Text v);
  static Value caller_str(std::string v);
  static Value make_list(List items = {});
  static Value make_tuple(List items);
  static Value make_dict();
  static Value make_namespace();
  static Value function(std::string name, NativeFn fn);

  bool is_undefined() const { return kind == Kind::kUndefined; }
  bool is_none() const { return kind == Kind::kNone; }
  bool is_str() const { return kind == Kind::kStr; }
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool; }
  bool is_sequence() const { return kind == Kind::kList || kind == Kind::kTuple; }
  bool is_mapping() const { return kind == Kind::kDict || kind == Kind::kNamespace; }
  const std::string& text() const { return s.text; }
};

struct Dict {
  std::vector<std::pair<Value, Value>> items;
  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
  void set(Value key, Value value);
};

// Arguments of a call: positional then keyword.
struct Args {
  List positional;
  std::vector<std::pair<std::string, Value>> keyword;
  // The argument at position `pos` or named `name`; nullptr when absent.
  const Value* get(std::size_t pos, std::string_view name) const;
};

// Python semantics.
std::string type_name(const Value& v);  // "str", "dict", "NoneType", "Undefined", …
bool truthy(const Value& v);
bool equal(const Value& a, const Value& b);
// str(v) with spans: a str keeps its spans; other values are marked when they contain marked text.
Text to_text(const Value& v);
std::string repr(const Value& v);
bool contains_marked(const Value& v);
// JSON conversions: from caller data (strings and keys marked when `caller`) and back (tojson).
Value from_json(const nlohmann::ordered_json& j, bool caller);
nlohmann::ordered_json to_json(const Value& v);  // raises TypeError for what json.dumps refuses
std::size_t length(const Value& v);               // len(); raises TypeError
// Items of a for loop / list(): str → characters, dict → keys; raises TypeError.
List iterate(const Value& v);

// Errors, as Python prints them: "<Type>: <message>", Error(codes::kInvalidRequest).
[[noreturn]] void raise(std::string_view type, std::string_view message);
[[noreturn]] void raise_undefined(const Value& v);

}  // namespace a3s::power::chat::jinja

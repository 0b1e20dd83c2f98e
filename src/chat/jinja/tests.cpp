// Jinja tests (`x is defined`, `x is string`, …): Jinja2 3.1's builtin tests, by name.
#include <cctype>

#include "chat/jinja/interpreter.h"

namespace a3s::power::chat::jinja {
namespace {

const Value& need(Args& a, std::string_view test) {
  if (a.positional.empty()) raise("TypeError", "test '" + std::string(test) + "' needs an argument");
  return a.positional[0];
}

std::int64_t int_of(const Value& v, std::string_view test) {
  if (v.kind == Value::Kind::kInt) return v.i;
  if (v.kind == Value::Kind::kBool) return v.b;
  if (v.is_undefined()) raise_undefined(v);
  raise("TypeError", "test '" + std::string(test) + "' needs an integer, not " + type_name(v));
}

}  // namespace

bool apply_test(Interpreter&, const std::string& n, const Value& v, Args& a, bool name_shown) {
  using VK = Value::Kind;
  if (n == "defined") return !v.is_undefined();
  if (n == "undefined") return v.is_undefined();
  if (n == "none") return v.is_none();
  if (n == "string") return v.is_str();
  if (n == "number") return v.is_number();
  if (n == "integer") return v.kind == VK::kInt;
  if (n == "float") return v.kind == VK::kFloat;
  if (n == "boolean") return v.kind == VK::kBool;
  if (n == "true") return v.kind == VK::kBool && v.b;
  if (n == "false") return v.kind == VK::kBool && !v.b;
  if (n == "mapping") return v.kind == VK::kDict;
  if (n == "iterable") return v.is_str() || v.is_sequence() || v.kind == VK::kDict || v.is_undefined();
  if (n == "sequence") return v.is_str() || v.is_sequence() || v.kind == VK::kDict || v.is_undefined();
  if (n == "callable") return v.kind == VK::kCallable;
  if (n == "eq" || n == "equalto" || n == "==") return equal(v, need(a, n));
  if (n == "ne" || n == "!=") return !equal(v, need(a, n));
  if (n == "lt" || n == "lessthan" || n == "<") return compare("<", v, need(a, n));
  if (n == "le" || n == "<=") return compare("<=", v, need(a, n));
  if (n == "gt" || n == "greaterthan" || n == ">") return compare(">", v, need(a, n));
  if (n == "ge" || n == ">=") return compare(">=", v, need(a, n));
  if (n == "in") return contains(need(a, n), v);
  if (n == "odd") return int_of(v, n) % 2 != 0;
  if (n == "even") return int_of(v, n) % 2 == 0;
  if (n == "divisibleby") {
    const std::int64_t d = int_of(need(a, n), n);
    if (d == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
    return int_of(v, n) % d == 0;
  }
  if (n == "sameas") {
    const Value& o = need(a, n);
    if (v.kind != o.kind) return false;
    switch (v.kind) {
      case VK::kNone:
      case VK::kUndefined:
        return true;
      case VK::kBool:
        return v.b == o.b;
      case VK::kList:
      case VK::kTuple:
        return v.list == o.list;
      case VK::kDict:
      case VK::kNamespace:
        return v.dict == o.dict;
      case VK::kCallable:
        return v.callable == o.callable;
      default:
        return equal(v, o);
    }
  }
  if (n == "lower" || n == "upper") {
    if (!v.is_str()) return false;
    bool cased = false;
    for (unsigned char c : v.text()) {
      if (n == "lower" && std::isupper(c)) return false;
      if (n == "upper" && std::islower(c)) return false;
      cased = cased || std::isalpha(c);
    }
    return cased;
  }
  raise("TemplateRuntimeError", name_shown ? "No test named '" + n + "' found." : "No test of the name given found.");
}

}  // namespace a3s::power::chat::jinja

// Python operators on template values: arithmetic, concatenation, comparison, membership,
// subscripts and slices.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>

#include "chat/jinja/interpreter.h"

namespace a3s::power::chat::jinja {
namespace {

bool is_intlike(const Value& v) { return v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool; }
std::int64_t as_int(const Value& v) { return v.kind == Value::Kind::kBool ? v.b : v.i; }
double as_double(const Value& v) { return v.kind == Value::Kind::kFloat ? v.f : static_cast<double>(as_int(v)); }

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  if (op == "+" && a.is_str()) raise("TypeError", "can only concatenate str (not \"" + type_name(b) + "\") to str");
  if (op == "+" && a.kind == Value::Kind::kList) {
    raise("TypeError", "can only concatenate list (not \"" + type_name(b) + "\") to list");
  }
  raise("TypeError", "unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" + type_name(b) + "'");
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Value binary_op(Interpreter& in, const std::string& op, const Value& a, const Value& b) {
  if (op == "~") {
    Text t = to_text(a);
    t.append(to_text(b));
    in.check_size(t.text.size());
    return Value::str(std::move(t));
  }
  if (a.is_undefined()) raise_undefined(a);
  if (b.is_undefined()) raise_undefined(b);
  if (a.is_number() && b.is_number()) {
    const bool ints = is_intlike(a) && is_intlike(b);
    if (ints && (op == "+" || op == "-" || op == "*")) {
      std::int64_t r = 0;
      const bool overflow = op == "+"   ? __builtin_add_overflow(as_int(a), as_int(b), &r)
                            : op == "-" ? __builtin_sub_overflow(as_int(a), as_int(b), &r)
                                        : __builtin_mul_overflow(as_int(a), as_int(b), &r);
      if (overflow) raise_limit("integer result outside the 64-bit range");
      return Value::integer(r);
    }
    if (op == "+") return Value::floating(as_double(a) + as_double(b));
    if (op == "-") return Value::floating(as_double(a) - as_double(b));
    if (op == "*") return Value::floating(as_double(a) * as_double(b));
    if (op == "/") {
      if (as_double(b) == 0) raise("ZeroDivisionError", "division by zero");
      return Value::floating(as_double(a) / as_double(b));
    }
    if (op == "//" || op == "%") {
      if (as_double(b) == 0) raise("ZeroDivisionError", ints ? "integer division or modulo by zero" : "float modulo");
      if (ints) {
        if (as_int(a) == INT64_MIN && as_int(b) == -1) raise_limit("integer result outside the 64-bit range");
        const std::int64_t q = floor_div(as_int(a), as_int(b));
        return op == "//" ? Value::integer(q) : Value::integer(as_int(a) - q * as_int(b));
      }
      const double q = std::floor(as_double(a) / as_double(b));
      return op == "//" ? Value::floating(q) : Value::floating(as_double(a) - q * as_double(b));
    }
    if (op == "**") {
      if (ints && as_int(b) >= 0) {
        std::int64_t r = 1;
        for (std::int64_t k = 0; k < as_int(b); ++k) {
          if (__builtin_mul_overflow(r, as_int(a), &r)) raise_limit("integer result outside the 64-bit range");
          if (r == 0 || r == 1) break;
          if (r == -1) {
            r = (as_int(b) - k - 1) % 2 == 0 ? -1 : 1;
            break;
          }
        }
        return Value::integer(r);
      }
      return Value::floating(std::pow(as_double(a), as_double(b)));
    }
  }
  if (op == "+") {
    if (a.is_str() && b.is_str()) {
      Text t = a.s;
      t.append(b.s);
      in.check_size(t.text.size());
      return Value::str(std::move(t));
    }
    if (a.is_sequence() && b.kind == a.kind) {
      List items = *a.list;
      items.insert(items.end(), b.list->begin(), b.list->end());
      in.check_size(items.size());
      return a.kind == Value::Kind::kList ? Value::make_list(std::move(items)) : Value::make_tuple(std::move(items));
    }
  }
  if (op == "*") {
    const Value* seq = is_intlike(b) ? &a : is_intlike(a) ? &b : nullptr;
    const Value* count = seq == &a ? &b : &a;
    if (seq != nullptr && (seq->is_str() || seq->is_sequence())) {
      const std::int64_t n = std::max<std::int64_t>(0, as_int(*count));
      const std::size_t unit = seq->is_str() ? seq->text().size() : seq->list->size();
      if (unit != 0 && static_cast<std::uint64_t>(n) > (1u << 30)) raise_limit("repetition too large");
      in.check_size(unit * static_cast<std::size_t>(n));
      if (seq->is_str()) {
        Text t;
        for (std::int64_t k = 0; k < n; ++k) t.append(seq->s);
        return Value::str(std::move(t));
      }
      List items;
      for (std::int64_t k = 0; k < n; ++k) items.insert(items.end(), seq->list->begin(), seq->list->end());
      return seq->kind == Value::Kind::kList ? Value::make_list(std::move(items)) : Value::make_tuple(std::move(items));
    }
  }
  unsupported(op, a, b);
}

bool contains(const Value& haystack, const Value& needle) {
  switch (haystack.kind) {
    case Value::Kind::kUndefined:
      return false;
    case Value::Kind::kStr:
      if (!needle.is_str()) {
        raise("TypeError", "'in <string>' requires string as left operand, not " + type_name(needle));
      }
      return haystack.text().find(needle.text()) != std::string::npos;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      for (const auto& e : *haystack.list) {
        if (equal(e, needle)) return true;
      }
      return false;
    case Value::Kind::kDict:
    case Value::Kind::kNamespace:
      return haystack.dict->find(needle) != nullptr;
    default:
      raise("TypeError", "argument of type '" + type_name(haystack) + "' is not iterable");
  }
}

namespace {

// -1, 0, 1; raises TypeError for unordered types.
int order(const std::string& op, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (is_intlike(a) && is_intlike(b)) return as_int(a) < as_int(b) ? -1 : as_int(a) > as_int(b) ? 1 : 0;
    const double x = as_double(a), y = as_double(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_str() && b.is_str()) {
    const int c = a.text().compare(b.text());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.is_sequence() && b.kind == a.kind) {
    const List& x = *a.list;
    const List& y = *b.list;
    for (std::size_t k = 0; k < x.size() && k < y.size(); ++k) {
      if (!equal(x[k], y[k])) return order(op, x[k], y[k]);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  if (a.is_undefined()) raise_undefined(a);
  if (b.is_undefined()) raise_undefined(b);
  raise("TypeError",
        "'" + op + "' not supported between instances of '" + type_name(a) + "' and '" + type_name(b) + "'");
}

}  // namespace

bool compare(const std::string& op, const Value& a, const Value& b) {
  if (op == "==") return equal(a, b);
  if (op == "!=") return !equal(a, b);
  if (op == "in") return contains(b, a);
  if (op == "notin") return !contains(b, a);
  const int c = order(op, a, b);
  if (op == "<") return c < 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  return c >= 0;  // ">="
}

namespace {

std::string element_hint(const Value& obj, const Value& key) {
  return "'" + type_name(obj) + " object' has no element " + (contains_marked(key) ? "\u2026" : repr(key));
}

// Byte offsets of the code points of s (plus the end).
std::vector<std::size_t> code_point_offsets(const std::string& s) {
  std::vector<std::size_t> offs;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if ((static_cast<unsigned char>(s[k]) & 0xc0) != 0x80) offs.push_back(k);
  }
  offs.push_back(s.size());
  return offs;
}

}  // namespace

Value get_item(const Value& obj, const Value& key) {
  if (obj.is_mapping()) {
    const Value* v = obj.dict->find(key);
    if (v != nullptr) return *v;
    if (key.is_str() && obj.kind == Value::Kind::kDict) {
      Value m = get_attribute(obj, key.text());
      if (!m.is_undefined()) return m;
    }
    if (key.is_str()) {
      return Value::undefined("'dict object' has no attribute '" + without_caller_text(key.s) + "'");
    }
    return Value::undefined(element_hint(obj, key));
  }
  if ((obj.is_sequence() || obj.is_str()) && (key.kind == Value::Kind::kInt || key.kind == Value::Kind::kBool)) {
    std::int64_t idx = as_int(key);
    if (obj.is_str()) {
      const auto offs = code_point_offsets(obj.text());
      const auto n = static_cast<std::int64_t>(offs.size() - 1);
      if (idx < 0) idx += n;
      if (idx < 0 || idx >= n) return Value::undefined(element_hint(obj, key));
      return Value::str(obj.s.substr(offs[idx], offs[idx + 1]));
    }
    const auto n = static_cast<std::int64_t>(obj.list->size());
    if (idx < 0) idx += n;
    if (idx < 0 || idx >= n) return Value::undefined(element_hint(obj, key));
    return (*obj.list)[static_cast<std::size_t>(idx)];
  }
  if (key.is_str()) {
    Value r = get_attribute(obj, key.text());
    if (r.is_undefined() && key.s.marked()) {
      return Value::undefined("'" + type_name(obj) + " object' has no attribute '" + without_caller_text(key.s) + "'");
    }
    return r;
  }
  return Value::undefined(element_hint(obj, key));
}

Value slice(const Value& obj, const Value& start, const Value& stop, const Value& step) {
  auto opt = [](const Value& v, const char* what) -> std::optional<std::int64_t> {
    if (v.is_none() || v.is_undefined()) return std::nullopt;
    if (!is_intlike(v)) raise("TypeError", std::string("slice indices must be integers or None (") + what + ")");
    return as_int(v);
  };
  const std::int64_t st = opt(step, "step").value_or(1);
  if (st == 0) raise("ValueError", "slice step cannot be zero");
  std::vector<std::size_t> offs;
  std::int64_t n;
  if (obj.is_str()) {
    offs = code_point_offsets(obj.text());
    n = static_cast<std::int64_t>(offs.size() - 1);
  } else if (obj.is_sequence()) {
    n = static_cast<std::int64_t>(obj.list->size());
  } else {
    raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
  }
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
    if (!v) return dflt;
    std::int64_t x = *v;
    if (x < 0) x += n;
    if (st > 0) return std::clamp<std::int64_t>(x, 0, n);
    return std::clamp<std::int64_t>(x, -1, n - 1);
  };
  const std::int64_t b = clamp(opt(start, "start"), st > 0 ? 0 : n - 1);
  const std::int64_t e = clamp(opt(stop, "stop"), st > 0 ? n : -1);
  if (obj.is_str() && st == 1) {
    if (b >= e) return Value::str(std::string());
    return Value::str(obj.s.substr(offs[b], offs[e]));
  }
  List items;
  Text t;
  for (std::int64_t k = b; st > 0 ? k < e : k > e; k += st) {
    if (obj.is_str()) {
      t.append(obj.s.substr(offs[k], offs[k + 1]));
    } else {
      items.push_back((*obj.list)[static_cast<std::size_t>(k)]);
    }
  }
  if (obj.is_str()) return Value::str(std::move(t));
  return obj.kind == Value::Kind::kList ? Value::make_list(std::move(items)) : Value::make_tuple(std::move(items));
}

}  // namespace a3s::power::chat::jinja

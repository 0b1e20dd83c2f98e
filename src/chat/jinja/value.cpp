#include "chat/jinja/value.h"

#include <cmath>

#include "a3s/power/error.h"
#include "chat/py_json.h"
#include "chat/py_value.h"

namespace a3s::power::chat::jinja {

void Text::append(const Text& t) {
  const std::size_t off = text.size();
  text += t.text;
  for (const Span& sp : t.spans) {
    if (!spans.empty() && spans.back().end == sp.begin + off) {
      spans.back().end = sp.end + off;
    } else {
      spans.push_back({sp.begin + off, sp.end + off});
    }
  }
}

void Text::append_marked(std::string_view s) {
  if (s.empty()) return;
  const std::size_t off = text.size();
  text += s;
  if (!spans.empty() && spans.back().end == off) {
    spans.back().end = text.size();
  } else {
    spans.push_back({off, text.size()});
  }
}

Text Text::substr(std::size_t begin, std::size_t end) const {
  Text out;
  if (end > text.size()) end = text.size();
  if (begin >= end) return out;
  out.text = text.substr(begin, end - begin);
  for (const Span& sp : spans) {
    const std::size_t b = std::max(sp.begin, begin);
    const std::size_t e = std::min(sp.end, end);
    if (b < e) out.spans.push_back({b - begin, e - begin});
  }
  return out;
}

Value Value::undefined(std::string hint) {
  Value v;
  v.s.text = std::move(hint);
  return v;
}
Value Value::none() {
  Value v;
  v.kind = Kind::kNone;
  return v;
}
Value Value::boolean(bool x) {
  Value v;
  v.kind = Kind::kBool;
  v.b = x;
  return v;
}
Value Value::integer(std::int64_t x) {
  Value v;
  v.kind = Kind::kInt;
  v.i = x;
  return v;
}
Value Value::floating(double x) {
  Value v;
  v.kind = Kind::kFloat;
  v.f = x;
  return v;
}
Value Value::str(std::string x) {
  Value v;
  v.kind = Kind::kStr;
  v.s.text = std::move(x);
  return v;
}
Value Value::str(Text x) {
  Value v;
  v.kind = Kind::kStr;
  v.s = std::move(x);
  return v;
}
Value Value::caller_str(std::string x) {
  Value v;
  v.kind = Kind::kStr;
  v.s.append_marked(x);
  return v;
}
Value Value::make_list(List items) {
  Value v;
  v.kind = Kind::kList;
  v.list = std::make_shared<List>(std::move(items));
  return v;
}
Value Value::make_tuple(List items) {
  Value v = make_list(std::move(items));
  v.kind = Kind::kTuple;
  return v;
}
Value Value::make_dict() {
  Value v;
  v.kind = Kind::kDict;
  v.dict = std::make_shared<Dict>();
  return v;
}
Value Value::make_namespace() {
  Value v = make_dict();
  v.kind = Kind::kNamespace;
  return v;
}
Value Value::function(std::string name, NativeFn fn) {
  Value v;
  v.kind = Kind::kCallable;
  v.callable = std::make_shared<Callable>(Callable{std::move(name), std::move(fn)});
  return v;
}

const Value* Dict::find(const Value& key) const {
  for (const auto& [k, v] : items) {
    if (equal(k, key)) return &v;
  }
  return nullptr;
}

const Value* Dict::find(std::string_view key) const {
  for (const auto& [k, v] : items) {
    if (k.is_str() && k.text() == key) return &v;
  }
  return nullptr;
}

void Dict::set(Value key, Value value) {
  for (auto& [k, v] : items) {
    if (equal(k, key)) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(std::move(key), std::move(value));
}

const Value* Args::get(std::size_t pos, std::string_view name) const {
  if (pos < positional.size()) return &positional[pos];
  for (const auto& [k, v] : keyword) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string type_name(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kUndefined:
      return "Undefined";
    case Value::Kind::kNone:
      return "NoneType";
    case Value::Kind::kBool:
      return "bool";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kFloat:
      return "float";
    case Value::Kind::kStr:
      return "str";
    case Value::Kind::kList:
      return "list";
    case Value::Kind::kTuple:
      return "tuple";
    case Value::Kind::kDict:
      return "dict";
    case Value::Kind::kNamespace:
      return "Namespace";
    case Value::Kind::kCallable:
      return "function";
  }
  return "object";
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone:
      return false;
    case Value::Kind::kBool:
      return v.b;
    case Value::Kind::kInt:
      return v.i != 0;
    case Value::Kind::kFloat:
      return v.f != 0.0;
    case Value::Kind::kStr:
      return !v.text().empty();
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return !v.list->empty();
    case Value::Kind::kDict:
      return !v.dict->items.empty();
    case Value::Kind::kNamespace:
    case Value::Kind::kCallable:
      return true;
  }
  return false;
}

namespace {
double as_double(const Value& v) {
  if (v.kind == Value::Kind::kBool) return v.b ? 1.0 : 0.0;
  if (v.kind == Value::Kind::kInt) return static_cast<double>(v.i);
  return v.f;
}
}  // namespace

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind != Value::Kind::kFloat && b.kind != Value::Kind::kFloat) {
      const std::int64_t x = a.kind == Value::Kind::kBool ? a.b : a.i;
      const std::int64_t y = b.kind == Value::Kind::kBool ? b.b : b.i;
      return x == y;
    }
    return as_double(a) == as_double(b);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kStr:
      return a.text() == b.text();
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      if (a.list->size() != b.list->size()) return false;
      for (std::size_t i = 0; i < a.list->size(); ++i) {
        if (!equal((*a.list)[i], (*b.list)[i])) return false;
      }
      return true;
    }
    case Value::Kind::kDict: {
      if (a.dict->items.size() != b.dict->items.size()) return false;
      for (const auto& [k, v] : a.dict->items) {
        const Value* o = b.dict->find(k);
        if (o == nullptr || !equal(v, *o)) return false;
      }
      return true;
    }
    default:
      return a.dict == b.dict && a.callable == b.callable;
  }
}

bool contains_marked(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kStr:
      return v.s.marked();
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      for (const auto& e : *v.list) {
        if (contains_marked(e)) return true;
      }
      return false;
    case Value::Kind::kDict:
    case Value::Kind::kNamespace:
      for (const auto& [k, e] : v.dict->items) {
        if (contains_marked(k) || contains_marked(e)) return true;
      }
      return false;
    default:
      return false;
  }
}

std::string repr(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kStr:
      return py::repr(py::Json(v.text()));
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      const bool tuple = v.kind == Value::Kind::kTuple;
      std::string out = tuple ? "(" : "[";
      bool first = true;
      for (const auto& e : *v.list) {
        if (!first) out += ", ";
        first = false;
        out += repr(e);
      }
      if (tuple && v.list->size() == 1) out += ",";
      return out + (tuple ? ")" : "]");
    }
    case Value::Kind::kDict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, e] : v.dict->items) {
        if (!first) out += ", ";
        first = false;
        out += repr(k) + ": " + repr(e);
      }
      return out + "}";
    }
    case Value::Kind::kNamespace:
      return "<Namespace>";
    case Value::Kind::kCallable:
      return "<function " + v.callable->name + ">";
    default:
      return to_text(v).text;
  }
}

Text to_text(const Value& v) {
  Text t;
  switch (v.kind) {
    case Value::Kind::kUndefined:
      return t;
    case Value::Kind::kNone:
      t.text = "None";
      return t;
    case Value::Kind::kBool:
      t.text = v.b ? "True" : "False";
      return t;
    case Value::Kind::kInt:
      t.text = std::to_string(v.i);
      return t;
    case Value::Kind::kFloat:
      t.text = py::float_repr(v.f);
      return t;
    case Value::Kind::kStr:
      return v.s;
    default: {
      const std::string r = repr(v);
      if (contains_marked(v)) {
        t.append_marked(r);
      } else {
        t.text = r;
      }
      return t;
    }
  }
}

Value from_json(const nlohmann::ordered_json& j, bool caller) {
  using J = nlohmann::ordered_json;
  switch (j.type()) {
    case J::value_t::null:
      return Value::none();
    case J::value_t::boolean:
      return Value::boolean(j.get<bool>());
    case J::value_t::number_integer:
      return Value::integer(j.get<std::int64_t>());
    case J::value_t::number_unsigned:
      return Value::integer(static_cast<std::int64_t>(j.get<std::uint64_t>()));
    case J::value_t::number_float:
      return Value::floating(j.get<double>());
    case J::value_t::string:
      return caller ? Value::caller_str(j.get<std::string>()) : Value::str(j.get<std::string>());
    case J::value_t::array: {
      List items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(from_json(e, caller));
      return Value::make_list(std::move(items));
    }
    case J::value_t::object: {
      Value d = Value::make_dict();
      d.dict->items.reserve(j.size());
      for (const auto& [k, e] : j.items()) {
        d.dict->items.emplace_back(caller ? Value::caller_str(k) : Value::str(k), from_json(e, caller));
      }
      return d;
    }
    default:
      return Value::none();
  }
}

nlohmann::ordered_json to_json(const Value& v) {
  using J = nlohmann::ordered_json;
  switch (v.kind) {
    case Value::Kind::kNone:
      return nullptr;
    case Value::Kind::kBool:
      return v.b;
    case Value::Kind::kInt:
      return v.i;
    case Value::Kind::kFloat:
      return v.f;
    case Value::Kind::kStr:
      return v.text();
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      J a = J::array();
      for (const auto& e : *v.list) a.push_back(to_json(e));
      return a;
    }
    case Value::Kind::kDict: {
      J o = J::object();
      for (const auto& [k, e] : v.dict->items) {
        std::string key;
        if (k.is_str()) {
          key = k.text();
        } else if (k.kind == Value::Kind::kNone) {
          key = "null";
        } else if (k.kind == Value::Kind::kBool) {
          key = k.b ? "true" : "false";
        } else if (k.kind == Value::Kind::kInt || k.kind == Value::Kind::kFloat) {
          key = to_text(k).text;
        } else {
          raise("TypeError", "keys must be str, int, float, bool or None, not " + type_name(k));
        }
        o[key] = to_json(e);
      }
      return o;
    }
    default:
      raise("TypeError", "Object of type " + type_name(v) + " is not JSON serializable");
  }
}

std::size_t length(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kUndefined:
      return 0;
    case Value::Kind::kStr:
      return py::code_points(v.text());
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return v.list->size();
    case Value::Kind::kDict:
      return v.dict->items.size();
    default:
      raise("TypeError", "object of type '" + type_name(v) + "' has no len()");
  }
}

List iterate(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kUndefined:
      return {};
    case Value::Kind::kStr: {
      List out;
      const std::string& s = v.text();
      std::size_t i = 0;
      while (i < s.size()) {
        std::size_t n = 1;
        while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xc0) == 0x80) ++n;
        out.push_back(Value::str(v.s.substr(i, i + n)));
        i += n;
      }
      return out;
    }
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return *v.list;
    case Value::Kind::kDict: {
      List out;
      for (const auto& [k, e] : v.dict->items) out.push_back(k);
      return out;
    }
    default:
      raise("TypeError", "'" + type_name(v) + "' object is not iterable");
  }
}

void raise(std::string_view type, std::string_view message) {
  throw Error(codes::kInvalidRequest, std::string(type) + ": " + std::string(message));
}

void raise_undefined(const Value& v) {
  raise("UndefinedError", v.text());
}

}  // namespace a3s::power::chat::jinja

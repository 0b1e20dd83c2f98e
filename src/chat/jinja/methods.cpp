// Attribute access (Jinja's getattr with the immutable sandbox): dict items, and the methods of
// str, dict and list that templates call. Methods that modify a list or dict are refused with the
// sandbox's SecurityError, as transformers' ImmutableSandboxedEnvironment does.
#include <algorithm>
#include <cctype>

#include "chat/jinja/interpreter.h"
#include "chat/py_value.h"

namespace a3s::power::chat::jinja {
namespace {

const Value* arg(Args& a, std::size_t pos, std::string_view name) { return a.get(pos, name); }

Value method(const Value& self, std::string name, std::function<Value(Interpreter&, const Value&, Args&)> fn) {
  return Value::function(name, [self, fn = std::move(fn)](Interpreter& in, Args& a) { return fn(in, self, a); });
}

Value unsafe(const Value& obj, std::string_view name) {
  const std::string msg = "access to attribute '" + std::string(name) + "' of '" + type_name(obj) + "' object is unsafe.";
  return Value::function(std::string(name), [msg](Interpreter&, Args&) -> Value { raise("SecurityError", msg); });
}

const std::string& require_str(const Value* v, std::string_view what) {
  if (v == nullptr || !v->is_str()) raise("TypeError", std::string(what) + " argument must be str");
  return v->text();
}

// split / rsplit: parts keep their spans.
Value split(const Value& self, Args& a, bool from_right) {
  const Value* sep = arg(a, 0, "sep");
  const Value* maxv = arg(a, 1, "maxsplit");
  std::int64_t maxsplit = maxv != nullptr ? to_int(*maxv, "maxsplit") : -1;
  const std::string& s = self.text();
  List parts;
  if (sep == nullptr || sep->is_none()) {
    // Whitespace runs; empty parts dropped.
    std::vector<std::pair<std::size_t, std::size_t>> words;
    std::size_t k = 0;
    auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
    while (k < s.size()) {
      while (k < s.size() && ws(s[k])) ++k;
      if (k >= s.size()) break;
      std::size_t e = k;
      while (e < s.size() && !ws(s[e])) ++e;
      words.emplace_back(k, e);
      k = e;
    }
    if (maxsplit >= 0 && static_cast<std::size_t>(maxsplit) + 1 < words.size()) {
      const std::size_t keep = static_cast<std::size_t>(maxsplit);
      if (!from_right) {
        std::vector<std::pair<std::size_t, std::size_t>> w(words.begin(), words.begin() + keep);
        std::size_t rest = words[keep].first;
        std::size_t end = s.size();
        while (end > rest && ws(s[end - 1])) --end;
        w.emplace_back(rest, end);
        words = w;
      } else {
        std::vector<std::pair<std::size_t, std::size_t>> w;
        std::size_t begin = 0;
        while (begin < s.size() && ws(s[begin])) ++begin;
        w.emplace_back(begin, words[words.size() - keep - 1].second);
        w.insert(w.end(), words.end() - static_cast<std::ptrdiff_t>(keep), words.end());
        words = w;
      }
    }
    for (auto [b, e] : words) parts.push_back(Value::str(self.s.substr(b, e)));
    return Value::make_list(std::move(parts));
  }
  const std::string& d = require_str(sep, "split() separator");
  if (d.empty()) raise("ValueError", "empty separator");
  std::vector<std::size_t> cuts;
  if (!from_right) {
    std::size_t pos = 0;
    while (maxsplit < 0 || static_cast<std::int64_t>(cuts.size()) < maxsplit) {
      const std::size_t f = s.find(d, pos);
      if (f == std::string::npos) break;
      cuts.push_back(f);
      pos = f + d.size();
    }
  } else {
    std::size_t end = s.size();
    while (maxsplit < 0 || static_cast<std::int64_t>(cuts.size()) < maxsplit) {
      if (end < d.size()) break;
      const std::size_t f = s.rfind(d, end - d.size());
      if (f == std::string::npos) break;
      cuts.push_back(f);
      if (f == 0) break;
      end = f;
    }
    std::reverse(cuts.begin(), cuts.end());
  }
  std::size_t pos = 0;
  for (std::size_t c : cuts) {
    parts.push_back(Value::str(self.s.substr(pos, c)));
    pos = c + d.size();
  }
  parts.push_back(Value::str(self.s.substr(pos, s.size())));
  return Value::make_list(std::move(parts));
}

bool affix(const Value& self, Args& a, bool start) {
  const Value* p = arg(a, 0, "prefix");
  if (p == nullptr) raise("TypeError", "startswith/endswith expected an argument");
  auto one = [&](const Value& x) {
    if (!x.is_str()) raise("TypeError", "startswith/endswith first arg must be str or a tuple of str");
    return start ? self.text().starts_with(x.text()) : self.text().ends_with(x.text());
  };
  if (p->is_sequence()) {
    for (const auto& x : *p->list) {
      if (one(x)) return true;
    }
    return false;
  }
  return one(*p);
}

Value replace(const Value& self, Args& a) {
  const std::string& from = require_str(arg(a, 0, "old"), "replace()");
  const Value* to = arg(a, 1, "new");
  const std::string& with = require_str(to, "replace()");
  const Value* cnt = arg(a, 2, "count");
  std::int64_t count = cnt != nullptr ? to_int(*cnt, "count") : -1;
  const std::string& s = self.text();
  std::string out;
  std::size_t pos = 0;
  std::int64_t done = 0;
  if (from.empty()) {
    // Python inserts `new` between every character (and at both ends).
    std::size_t k = 0;
    while (k <= s.size()) {
      if (count < 0 || done < count) {
        out += with;
        ++done;
      }
      if (k == s.size()) break;
      std::size_t n = 1;
      while (k + n < s.size() && (static_cast<unsigned char>(s[k + n]) & 0xc0) == 0x80) ++n;
      out += s.substr(k, n);
      k += n;
    }
  } else {
    while (count < 0 || done < count) {
      const std::size_t f = s.find(from, pos);
      if (f == std::string::npos) break;
      out += s.substr(pos, f - pos);
      out += with;
      pos = f + from.size();
      ++done;
    }
    out += s.substr(pos);
  }
  return derived(std::move(out), self.s.marked() || to->s.marked());
}

Value format(const Value& self, Args& a) {
  const std::string& s = self.text();
  Text out;
  bool marked = self.s.marked();
  std::size_t auto_index = 0;
  for (std::size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    if (c == '{' && k + 1 < s.size() && s[k + 1] == '{') {
      out.append("{");
      ++k;
    } else if (c == '}' && k + 1 < s.size() && s[k + 1] == '}') {
      out.append("}");
      ++k;
    } else if (c == '{') {
      const std::size_t close = s.find('}', k);
      if (close == std::string::npos) raise("ValueError", "Single '{' encountered in format string");
      const std::string field = s.substr(k + 1, close - k - 1);
      const Value* v = nullptr;
      if (field.empty()) {
        v = auto_index < a.positional.size() ? &a.positional[auto_index++] : nullptr;
      } else if (field.size() <= 9 && std::all_of(field.begin(), field.end(), [](char x) { return x >= '0' && x <= '9'; })) {
        const std::size_t idx = std::stoul(field);
        v = idx < a.positional.size() ? &a.positional[idx] : nullptr;
      } else {
        for (const auto& [n, x] : a.keyword) {
          if (n == field) v = &x;
        }
      }
      if (v == nullptr) raise("IndexError", "Replacement index out of range for positional args tuple");
      marked = marked || contains_marked(*v);
      out.append(to_text(*v));
      k = close;
    } else {
      out.text += c;
    }
  }
  return derived(std::move(out.text), marked || out.marked());
}

Value str_method(const Value& self, std::string_view name) {
  const std::string n(name);
  if (n == "strip" || n == "lstrip" || n == "rstrip") {
    return method(self, n, [n](Interpreter&, const Value& s, Args& a) {
      return Value::str(strip_text(s.s, n != "rstrip", n != "lstrip", arg(a, 0, "chars")));
    });
  }
  if (n == "split" || n == "rsplit") {
    return method(self, n, [n](Interpreter&, const Value& s, Args& a) { return split(s, a, n == "rsplit"); });
  }
  if (n == "startswith" || n == "endswith") {
    return method(self, n, [n](Interpreter&, const Value& s, Args& a) {
      return Value::boolean(affix(s, a, n == "startswith"));
    });
  }
  if (n == "upper" || n == "lower" || n == "title" || n == "capitalize") {
    return method(self, n, [n](Interpreter&, const Value& s, Args&) {
      const std::string& t = s.text();
      std::string out = n == "upper" ? upper(t) : n == "lower" ? lower(t) : n == "title" ? title(t) : capitalize(t);
      return derived(std::move(out), s.s.marked());
    });
  }
  if (n == "replace") return method(self, n, [](Interpreter&, const Value& s, Args& a) { return replace(s, a); });
  if (n == "format") return method(self, n, [](Interpreter&, const Value& s, Args& a) { return format(s, a); });
  if (n == "find" || n == "rfind" || n == "count" || n == "index") {
    return method(self, n, [n](Interpreter&, const Value& s, Args& a) {
      const std::string& sub = require_str(arg(a, 0, "sub"), n);
      const std::string& t = s.text();
      if (n == "count") {
        if (sub.empty()) return Value::integer(static_cast<std::int64_t>(length(s) + 1));
        std::int64_t c = 0;
        for (std::size_t p = t.find(sub); p != std::string::npos; p = t.find(sub, p + sub.size())) ++c;
        return Value::integer(c);
      }
      const std::size_t p = n == "rfind" ? t.rfind(sub) : t.find(sub);
      if (p == std::string::npos) {
        if (n == "index") raise("ValueError", "substring not found");
        return Value::integer(-1);
      }
      return Value::integer(static_cast<std::int64_t>(py::code_points(std::string_view(t).substr(0, p))));
    });
  }
  if (n == "join") {
    return method(self, n, [](Interpreter& in, const Value& s, Args& a) {
      const Value* it = arg(a, 0, "iterable");
      if (it == nullptr) raise("TypeError", "join() takes exactly one argument");
      Text out;
      bool first = true;
      for (const auto& x : iterate(*it)) {
        if (!x.is_str()) raise("TypeError", "sequence item: expected str instance, " + type_name(x) + " found");
        if (!first) out.append(s.s);
        first = false;
        out.append(x.s);
        in.check_size(out.text.size());
      }
      return Value::str(std::move(out));
    });
  }
  if (n == "isdigit" || n == "isalpha" || n == "isalnum" || n == "isspace" || n == "islower" || n == "isupper") {
    return method(self, n, [n](Interpreter&, const Value& s, Args&) {
      const std::string& t = s.text();
      if (t.empty()) return Value::boolean(false);
      bool ok = true, cased = false;
      for (unsigned char c : t) {
        if (n == "isdigit") ok = ok && std::isdigit(c);
        if (n == "isalpha") ok = ok && std::isalpha(c);
        if (n == "isalnum") ok = ok && std::isalnum(c);
        if (n == "isspace") ok = ok && std::isspace(c);
        if (n == "islower") {
          ok = ok && !std::isupper(c);
          cased = cased || std::islower(c);
        }
        if (n == "isupper") {
          ok = ok && !std::islower(c);
          cased = cased || std::isupper(c);
        }
      }
      if (n == "islower" || n == "isupper") ok = ok && cased;
      return Value::boolean(ok);
    });
  }
  if (n == "splitlines") {
    return method(self, n, [](Interpreter&, const Value& s, Args&) {
      List parts;
      const std::string& t = s.text();
      std::size_t pos = 0;
      while (pos < t.size()) {
        std::size_t e = t.find_first_of("\r\n", pos);
        if (e == std::string::npos) {
          parts.push_back(Value::str(s.s.substr(pos, t.size())));
          break;
        }
        parts.push_back(Value::str(s.s.substr(pos, e)));
        pos = (t[e] == '\r' && e + 1 < t.size() && t[e + 1] == '\n') ? e + 2 : e + 1;
      }
      return Value::make_list(std::move(parts));
    });
  }
  return Value::undefined("'str object' has no attribute '" + n + "'");
}

Value dict_method(const Value& self, std::string_view name) {
  const std::string n(name);
  if (n == "get") {
    return method(self, n, [](Interpreter&, const Value& d, Args& a) {
      const Value* k = arg(a, 0, "key");
      if (k == nullptr) raise("TypeError", "get expected at least 1 argument, got 0");
      const Value* v = d.dict->find(*k);
      if (v != nullptr) return *v;
      const Value* dflt = arg(a, 1, "default");
      return dflt != nullptr ? *dflt : Value::none();
    });
  }
  if (n == "items" || n == "keys" || n == "values") {
    return method(self, n, [n](Interpreter&, const Value& d, Args&) {
      List out;
      for (const auto& [k, v] : d.dict->items) {
        if (n == "items") {
          out.push_back(Value::make_tuple({k, v}));
        } else {
          out.push_back(n == "keys" ? k : v);
        }
      }
      return Value::make_list(std::move(out));
    });
  }
  if (n == "copy") return method(self, n, [](Interpreter&, const Value& d, Args&) {
      Value c = Value::make_dict();
      c.dict->items = d.dict->items;
      return c;
    });
  if (n == "pop" || n == "popitem" || n == "update" || n == "setdefault" || n == "clear") return unsafe(self, n);
  return Value::undefined("");
}

Value list_method(const Value& self, std::string_view name) {
  const std::string n(name);
  if (n == "index" || n == "count") {
    return method(self, n, [n](Interpreter&, const Value& l, Args& a) {
      const Value* x = arg(a, 0, "value");
      if (x == nullptr) raise("TypeError", n + "() takes exactly one argument");
      std::int64_t c = 0;
      for (std::size_t k = 0; k < l.list->size(); ++k) {
        if (equal((*l.list)[k], *x)) {
          if (n == "index") return Value::integer(static_cast<std::int64_t>(k));
          ++c;
        }
      }
      if (n == "index") raise("ValueError", "value is not in list");
      return Value::integer(c);
    });
  }
  if (self.kind == Value::Kind::kList &&
      (n == "append" || n == "pop" || n == "extend" || n == "insert" || n == "remove" || n == "reverse" ||
       n == "sort" || n == "clear")) {
    return unsafe(self, n);
  }
  return Value::undefined("'" + type_name(self) + " object' has no attribute '" + n + "'");
}

}  // namespace

Value get_attribute(const Value& obj, std::string_view name) {
  // `name` is template text: attribute syntax, or a subscript key (get_item hides caller keys).
  switch (obj.kind) {
    case Value::Kind::kUndefined:
      raise_undefined(obj);
    case Value::Kind::kStr:
      return str_method(obj, name);
    case Value::Kind::kDict: {
      Value m = dict_method(obj, name);
      if (!m.is_undefined()) return m;
      const Value* v = obj.dict->find(name);
      if (v != nullptr) return *v;
      return Value::undefined("'dict object' has no attribute '" + std::string(name) + "'");
    }
    case Value::Kind::kNamespace: {
      const Value* v = obj.dict->find(name);
      if (v != nullptr) return *v;
      return Value::undefined("'Namespace object' has no attribute '" + std::string(name) + "'");
    }
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return list_method(obj, name);
    case Value::Kind::kNone:
      return Value::undefined("'None' has no attribute '" + std::string(name) + "'");
    default:
      return Value::undefined("'" + type_name(obj) + " object' has no attribute '" + std::string(name) + "'");
  }
}

}  // namespace a3s::power::chat::jinja

// Jinja filters (`x | name(args)`): the builtin filters of Jinja2 3.1 that chat templates use, plus
// transformers' `tojson` (json.dumps with ensure_ascii=False and an optional indent).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "chat/jinja/interpreter.h"
#include "chat/py_value.h"
#include "chat/py_json.h"

namespace a3s::power::chat::jinja {
namespace {

const Value* arg(Args& a, std::size_t pos, std::string_view name) { return a.get(pos, name); }

bool flag(Args& a, std::size_t pos, std::string_view name, bool dflt) {
  const Value* v = arg(a, pos, name);
  return v != nullptr ? truthy(*v) : dflt;
}

// Jinja's attribute getter: "a.b.0" → getitem for every part.
Value attr_path(const Value& item, const Value& path) {
  if (path.kind == Value::Kind::kInt) return get_item(item, path);
  Value cur = item;
  const std::string& p = path.text();
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = p.find('.', pos);
    const std::string part = p.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (cur.is_undefined()) return cur;
    cur = digits ? get_item(cur, Value::integer(std::atoll(part.c_str()))) : get_item(cur, Value::str(part));
    if (dot == std::string::npos) return cur;
    pos = dot + 1;
  }
}

Value sort_key(const Value& v, bool case_sensitive) {
  if (!case_sensitive && v.is_str()) return Value::str(lower(v.text()));
  return v;
}

// transformers' tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False).
Value do_tojson(const Value& v, Args& a) {
  py::DumpsOptions o;
  const Value* ensure_ascii = arg(a, 0, "ensure_ascii");
  o.ensure_ascii = ensure_ascii != nullptr && truthy(*ensure_ascii);
  const Value* ind = arg(a, 1, "indent");
  if (ind != nullptr && !ind->is_none()) {
    const std::int64_t n = to_int(*ind, "indent");
    if (n > 64) raise_limit("tojson indent larger than 64");
    o.indent = static_cast<int>(std::max<std::int64_t>(0, n));
  }
  const Value* seps = arg(a, 2, "separators");
  if (seps != nullptr && !seps->is_none()) {
    if (!seps->is_sequence() || seps->list->size() != 2 || !(*seps->list)[0].is_str() || !(*seps->list)[1].is_str()) {
      raise("TypeError", "tojson separators must be a pair of strings");
    }
    o.separators = std::make_pair((*seps->list)[0].text(), (*seps->list)[1].text());
  }
  const Value* sort_keys = arg(a, 3, "sort_keys");
  o.sort_keys = sort_keys != nullptr && truthy(*sort_keys);
  const std::string out = py::dumps(to_json(v), o);
  return derived(out, contains_marked(v));
}

// Jinja's `title`: every word (after whitespace, '-', '(', '{', '[', '<') capitalised.
std::string jinja_title(std::string_view s) {
  std::string out(s);
  bool start = true;
  for (auto& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<') {
      start = true;
      continue;
    }
    c = static_cast<char>(start ? std::toupper(u) : std::tolower(u));
    start = false;
  }
  return out;
}

Value select_items(Interpreter& in, const Value& v, Args& a, bool attr, bool keep) {
  List out;
  std::size_t first_test_arg = attr ? 1 : 0;
  const Value* path = attr ? arg(a, 0, "attribute") : nullptr;
  if (attr && path == nullptr) raise("TypeError", "selectattr needs an attribute");
  const Value* test = first_test_arg < a.positional.size() ? &a.positional[first_test_arg] : nullptr;
  for (const auto& item : iterate(v)) {
    in.count_iterations(1);
    Value subject = attr ? attr_path(item, *path) : item;
    bool ok;
    if (test == nullptr) {
      ok = truthy(subject);
    } else {
      Args targs;
      for (std::size_t k = first_test_arg + 1; k < a.positional.size(); ++k) targs.positional.push_back(a.positional[k]);
      ok = apply_test(in, to_text(*test).text, subject, targs, /*name_shown=*/false);
    }
    if (ok == keep) out.push_back(item);
  }
  return Value::make_list(std::move(out));
}

List sorted(const List& items, bool reverse, bool case_sensitive, const Value* attribute) {
  List out = items;
  std::stable_sort(out.begin(), out.end(), [&](const Value& x, const Value& y) {
    Value kx = sort_key(attribute ? attr_path(x, *attribute) : x, case_sensitive);
    Value ky = sort_key(attribute ? attr_path(y, *attribute) : y, case_sensitive);
    return reverse ? compare("<", ky, kx) : compare("<", kx, ky);
  });
  return out;
}

}  // namespace

Value apply_filter(Interpreter& in, const std::string& n, const Value& v, Args& a, bool name_shown) {
  if (n == "tojson") return do_tojson(v, a);
  if (n == "safe" || n == "e" || n == "escape" || n == "forceescape") {
    if (n == "safe") return v;
  }
  if (n == "string") return Value::str(to_text(v));
  if (n == "trim") return Value::str(strip_text(to_text(v), true, true, arg(a, 0, "chars")));
  if (n == "upper" || n == "lower" || n == "capitalize" || n == "title") {
    const Text t = to_text(v);
    std::string out = n == "upper" ? upper(t.text) : n == "lower" ? lower(t.text) : n == "capitalize" ? capitalize(t.text) : jinja_title(t.text);
    return derived(std::move(out), t.marked());
  }
  if (n == "length" || n == "count") return Value::integer(static_cast<std::int64_t>(length(v)));
  if (n == "default" || n == "d") {
    const bool boolean = flag(a, 1, "boolean", false);
    if (v.is_undefined() || (boolean && !truthy(v))) {
      const Value* d = arg(a, 0, "default_value");
      return d != nullptr ? *d : Value::str(std::string());
    }
    return v;
  }
  if (n == "first" || n == "last") {
    if (v.is_undefined()) raise_undefined(v);
    const List items = iterate(v);
    if (items.empty()) return Value::undefined("No first item, sequence was empty.");
    return n == "first" ? items.front() : items.back();
  }
  if (n == "list") return Value::make_list(iterate(v));
  if (n == "join") {
    const Value* sep = arg(a, 0, "d");
    const Value* attribute = arg(a, 1, "attribute");
    Text out;
    bool first = true;
    for (const auto& item : iterate(v)) {
      if (!first && sep != nullptr) out.append(to_text(*sep));
      first = false;
      out.append(to_text(attribute ? attr_path(item, *attribute) : item));
      in.check_size(out.text.size());
    }
    return Value::str(std::move(out));
  }
  if (n == "items") {
    if (v.is_undefined()) return Value::make_list();
    if (!v.is_mapping()) raise("TypeError", "'items' filter expects a mapping, got " + type_name(v));
    List out;
    for (const auto& [k, x] : v.dict->items) out.push_back(Value::make_tuple({k, x}));
    return Value::make_list(std::move(out));
  }
  if (n == "dictsort") {
    if (!v.is_mapping()) raise("TypeError", "dictsort expects a mapping, got " + type_name(v));
    const bool cs = flag(a, 0, "case_sensitive", false);
    const Value* by = arg(a, 1, "by");
    const bool by_value = by != nullptr && by->is_str() && by->text() == "value";
    const bool rev = flag(a, 2, "reverse", false);
    List out;
    for (const auto& [k, x] : v.dict->items) out.push_back(Value::make_tuple({k, x}));
    std::stable_sort(out.begin(), out.end(), [&](const Value& p, const Value& q) {
      const Value kp = sort_key((*p.list)[by_value ? 1 : 0], cs);
      const Value kq = sort_key((*q.list)[by_value ? 1 : 0], cs);
      return rev ? compare("<", kq, kp) : compare("<", kp, kq);
    });
    return Value::make_list(std::move(out));
  }
  if (n == "map") {
    List out;
    const Value* attribute = nullptr;
    for (const auto& [k, x] : a.keyword) {
      if (k == "attribute") attribute = &x;
    }
    const Value* dflt = nullptr;
    for (const auto& [k, x] : a.keyword) {
      if (k == "default") dflt = &x;
    }
    for (const auto& item : iterate(v)) {
      in.count_iterations(1);
      if (attribute != nullptr) {
        Value r = attr_path(item, *attribute);
        out.push_back(r.is_undefined() && dflt != nullptr ? *dflt : r);
      } else {
        if (a.positional.empty()) raise("FilterArgumentError", "map requires a filter argument");
        Args fargs;
        fargs.positional.assign(a.positional.begin() + 1, a.positional.end());
        out.push_back(apply_filter(in, to_text(a.positional[0]).text, item, fargs, /*name_shown=*/false));
      }
    }
    return Value::make_list(std::move(out));
  }
  if (n == "select") return select_items(in, v, a, false, true);
  if (n == "reject") return select_items(in, v, a, false, false);
  if (n == "selectattr") return select_items(in, v, a, true, true);
  if (n == "rejectattr") return select_items(in, v, a, true, false);
  if (n == "unique") {
    const bool cs = flag(a, 0, "case_sensitive", false);
    const Value* attribute = arg(a, 1, "attribute");
    List out, seen;
    for (const auto& item : iterate(v)) {
      const Value key = sort_key(attribute ? attr_path(item, *attribute) : item, cs);
      bool dup = false;
      for (const auto& s : seen) dup = dup || equal(s, key);
      if (!dup) {
        seen.push_back(key);
        out.push_back(item);
      }
    }
    return Value::make_list(std::move(out));
  }
  if (n == "sort") {
    return Value::make_list(sorted(iterate(v), flag(a, 0, "reverse", false), flag(a, 1, "case_sensitive", false),
                                   arg(a, 2, "attribute")));
  }
  if (n == "min" || n == "max") {
    const List items = sorted(iterate(v), false, flag(a, 0, "case_sensitive", false), arg(a, 1, "attribute"));
    if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
    return n == "min" ? items.front() : items.back();
  }
  if (n == "reverse") {
    if (v.is_str()) {
      List chars = iterate(v);
      Text out;
      for (auto it = chars.rbegin(); it != chars.rend(); ++it) out.append(it->s);
      return Value::str(std::move(out));
    }
    List items = iterate(v);
    std::reverse(items.begin(), items.end());
    return Value::make_list(std::move(items));
  }
  if (n == "replace") {
    Value s = Value::str(to_text(v));
    Value m = get_attribute(s, "replace");
    return in.call(m, a);
  }
  if (n == "int") {
    const Value* d = arg(a, 0, "default");
    if (v.kind == Value::Kind::kInt) return v;
    if (v.kind == Value::Kind::kBool) return Value::integer(v.b);
    auto from_double = [&](double f) {
      if (!(f > -9.2e18 && f < 9.2e18)) return d != nullptr ? *d : Value::integer(0);
      return Value::integer(static_cast<std::int64_t>(f));
    };
    if (v.kind == Value::Kind::kFloat) return from_double(v.f);
    if (v.is_str()) {
      const std::string t = py::strip(v.text());
      char* end = nullptr;
      errno = 0;
      const long long x = std::strtoll(t.c_str(), &end, 10);
      if (!t.empty() && end == t.c_str() + t.size() && errno != ERANGE) return Value::integer(x);
      const double f = std::strtod(t.c_str(), &end);
      if (!t.empty() && end == t.c_str() + t.size()) return from_double(f);
    }
    return d != nullptr ? *d : Value::integer(0);
  }
  if (n == "float") {
    const Value* d = arg(a, 0, "default");
    if (v.kind == Value::Kind::kFloat) return v;
    if (v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool) return Value::floating(v.kind == Value::Kind::kInt ? static_cast<double>(v.i) : v.b);
    if (v.is_str()) {
      const std::string t = py::strip(v.text());
      char* end = nullptr;
      const double f = std::strtod(t.c_str(), &end);
      if (!t.empty() && end == t.c_str() + t.size()) return Value::floating(f);
    }
    return d != nullptr ? *d : Value::floating(0.0);
  }
  if (n == "abs") {
    if (v.kind == Value::Kind::kInt) {
      if (v.i == INT64_MIN) raise_limit("integer result outside the 64-bit range");
      return Value::integer(v.i < 0 ? -v.i : v.i);
    }
    if (v.kind == Value::Kind::kBool) return Value::integer(v.b);
    if (v.kind == Value::Kind::kFloat) return Value::floating(std::fabs(v.f));
    raise("TypeError", "bad operand type for abs(): '" + type_name(v) + "'");
  }
  if (n == "round") {
    const Value* p = arg(a, 0, "precision");
    const Value* m = arg(a, 1, "method");
    const std::int64_t precision = p != nullptr ? to_int(*p, "precision") : 0;
    const std::string method = m != nullptr ? m->text() : "common";
    if (!v.is_number()) raise("TypeError", "round expects a number");
    const double x = v.kind == Value::Kind::kFloat ? v.f : static_cast<double>(v.kind == Value::Kind::kInt ? v.i : v.b);
    const double scale = std::pow(10.0, static_cast<double>(precision));
    double r;
    if (method == "ceil") {
      r = std::ceil(x * scale) / scale;
    } else if (method == "floor") {
      r = std::floor(x * scale) / scale;
    } else {
      r = std::round(x * scale) / scale;
    }
    return Value::floating(r);
  }
  if (n == "indent") {
    const Value* w = arg(a, 0, "width");
    const std::int64_t width = w == nullptr || w->is_str() ? 0 : to_int(*w, "width");
    if (width > 4096) raise_limit("indent width larger than 4096");
    std::string pad = w == nullptr ? "    " : w->is_str() ? w->text() : std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, width)), ' ');
    const bool first = flag(a, 1, "first", false);
    const bool blank = flag(a, 2, "blank", false);
    const Text t = to_text(v);
    std::string out;
    std::size_t pos = 0;
    bool is_first = true;
    const std::string& s = t.text;
    while (true) {
      const std::size_t nl = s.find('\n', pos);
      const std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      if (is_first ? first : (blank || !line.empty())) out += pad;
      out += line;
      is_first = false;
      if (nl == std::string::npos) break;
      out += '\n';
      pos = nl + 1;
    }
    in.check_size(out.size());
    return derived(std::move(out), t.marked());
  }
  if (n == "wordcount") {
    std::int64_t count = 0;
    bool in_word = false;
    for (unsigned char c : to_text(v).text) {
      const bool w = std::isalnum(c) || c == '_' || c >= 0x80;
      if (w && !in_word) ++count;
      in_word = w;
    }
    return Value::integer(count);
  }
  if (n == "batch") {
    const std::int64_t size = to_int(a.positional.empty() ? Value::integer(1) : a.positional[0], "linecount");
    if (size <= 0) raise("ValueError", "batch size must be positive");
    const Value* fill = arg(a, 1, "fill_with");
    List out, cur;
    for (const auto& item : iterate(v)) {
      cur.push_back(item);
      if (static_cast<std::int64_t>(cur.size()) == size) {
        out.push_back(Value::make_list(std::move(cur)));
        cur.clear();
      }
    }
    if (!cur.empty()) {
      while (fill != nullptr && static_cast<std::int64_t>(cur.size()) < size) cur.push_back(*fill);
      out.push_back(Value::make_list(std::move(cur)));
    }
    return Value::make_list(std::move(out));
  }
  if (n == "sum") {
    Value total = Value::integer(0);
    for (const auto& item : iterate(v)) total = binary_op(in, "+", total, item);
    return total;
  }
  raise("TemplateRuntimeError", name_shown ? "No filter named '" + n + "' found." : "No filter of the name given found.");
}

}  // namespace a3s::power::chat::jinja

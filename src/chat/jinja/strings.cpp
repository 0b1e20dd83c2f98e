// Python str operations shared by filters and methods (case mapping is ASCII-only; other
// characters are kept as they are).
#include <cctype>
#include <string>

#include "chat/jinja/interpreter.h"
#include "chat/py_value.h"
#include "chat/utf8.h"

namespace a3s::power::chat::jinja {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string title(std::string_view s) {
  std::string out(s);
  bool prev_cased = false;
  for (auto& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalpha(u)) {
      c = static_cast<char>(prev_cased ? std::tolower(u) : std::toupper(u));
      prev_cased = true;
    } else {
      prev_cased = u >= 0x80 && prev_cased;
    }
  }
  return out;
}

std::string capitalize(std::string_view s) {
  std::string out = lower(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

Value derived(std::string text, bool marked) {
  if (!marked) return Value::str(std::move(text));
  return Value::caller_str(std::move(text));
}

std::int64_t to_int(const Value& v, std::string_view what) {
  if (v.kind == Value::Kind::kInt) return v.i;
  if (v.kind == Value::Kind::kBool) return v.b;
  raise("TypeError", "'" + type_name(v) + "' object cannot be interpreted as an integer (" + std::string(what) + ")");
}

Text strip_text(const Text& t, bool left, bool right, const Value* chars) {
  const std::string& s = t.text;
  if (chars == nullptr || chars->is_none() || chars->is_undefined()) {
    const std::string core = py::strip(s);
    if (core.empty()) return Text{};  // all whitespace: every strip leaves ""
    const std::size_t first = s.find(core);
    const std::size_t b = left ? first : 0;
    const std::size_t e = right ? first + core.size() : s.size();
    return t.substr(b, e);
  }
  if (!chars->is_str()) raise("TypeError", "strip arg must be None or str");
  // Code points of the set.
  std::vector<std::string> set;
  utf8::for_each(chars->text(), [&](char32_t, std::string_view bytes) { set.emplace_back(bytes); });
  auto in_set = [&](std::string_view cp) {
    for (const auto& c : set) {
      if (c == cp) return true;
    }
    return false;
  };
  std::vector<std::pair<std::size_t, std::size_t>> cps;  // offset, length
  {
    std::size_t off = 0;
    utf8::for_each(s, [&](char32_t, std::string_view bytes) {
      cps.emplace_back(off, bytes.size());
      off += bytes.size();
    });
  }
  std::size_t bi = 0, ei = cps.size();
  if (left) {
    while (bi < ei && in_set(std::string_view(s).substr(cps[bi].first, cps[bi].second))) ++bi;
  }
  if (right) {
    while (ei > bi && in_set(std::string_view(s).substr(cps[ei - 1].first, cps[ei - 1].second))) --ei;
  }
  const std::size_t b = bi < cps.size() ? cps[bi].first : s.size();
  const std::size_t e = ei < cps.size() ? cps[ei].first : s.size();
  return t.substr(b, e);
}

}  // namespace a3s::power::chat::jinja

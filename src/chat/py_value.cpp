#include "chat/py_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <system_error>

#include "a3s/power/error.h"
#include "chat/utf8.h"

namespace a3s::power::chat::py {
namespace {

constexpr ErrorCode kTemplateErrorCode = codes::kInvalidRequest;

// The object part of Jinja's "'<type> object' has no attribute 'x'".
std::string object_label(const Json& v) {
  if (v.is_null()) return "'None'";
  std::string label = "'";
  label += type_name(v);
  label += " object'";
  return label;
}

bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
         c == 0x3000;
}

// str.isprintable() for non-ASCII code points: separators other than the ASCII space, controls,
// format characters, surrogates, private use and the permanent non-characters are not printable.
// Unassigned code points outside those ranges are treated as printable.
bool is_printable_non_ascii(char32_t c) {
  struct Range {
    char32_t lo, hi;
  };
  static constexpr Range kNonPrintable[] = {
      {0x80, 0xa0},       {0xad, 0xad},       {0x600, 0x605},      {0x61c, 0x61c},     {0x6dd, 0x6dd},
      {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},      {0x1680, 0x1680},   {0x180e, 0x180e},
      {0x2000, 0x200f},   {0x2028, 0x202f},   {0x205f, 0x2064},    {0x2066, 0x206f},   {0x3000, 0x3000},
      {0xd800, 0xf8ff},   {0xfdd0, 0xfdef},   {0xfeff, 0xfeff},    {0xfff9, 0xfffb},   {0xfffe, 0xffff},
      {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f},  {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
      {0xe0001, 0xe0001}, {0xe0020, 0xe007f}, {0xf0000, 0x10ffff},
  };
  for (const auto& r : kNonPrintable) {
    if (c >= r.lo && c <= r.hi) return false;
  }
  if ((c & 0xfffe) == 0xfffe) return false;  // U+xFFFE / U+xFFFF of every plane
  return true;
}

std::string hex_escape(char32_t c) {
  char buf[16];
  if (c < 0x100) {
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
  } else if (c < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
  }
  return buf;
}

std::string repr_str(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  utf8::for_each(s, [&](char32_t c, std::string_view bytes) {
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += hex_escape(c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c == utf8::kInvalid) {
      out += bytes;  // not valid UTF-8: kept as is
    } else if (is_printable_non_ascii(c)) {
      out += bytes;
    } else {
      out += hex_escape(c);
    }
  });
  out += quote;
  return out;
}

}  // namespace

Ref attr(const Json& obj, std::string_view key) {
  Ref r;
  if (obj.is_object()) {
    auto it = obj.find(key);
    if (it != obj.end()) {
      r.value = &*it;
      return r;
    }
  }
  r.undefined_hint = object_label(obj) + " has no attribute '" + std::string(key) + "'";
  return r;
}

Ref attr(const Ref& obj, std::string_view key) {
  if (!obj.defined()) raise_undefined(obj.undefined_hint);
  return attr(*obj, key);
}

Ref defined(const Json& value) {
  Ref r;
  r.value = &value;
  return r;
}

std::string type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "NoneType";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "int";
    case Json::value_t::number_float:
      return "float";
    case Json::value_t::string:
      return "str";
    case Json::value_t::array:
      return "list";
    case Json::value_t::object:
      return "dict";
    default:
      return "object";
  }
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const auto e_pos = sci.find('e');
  std::string digits;
  for (std::size_t i = 0; i < e_pos; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  const int exponent = std::stoi(sci.substr(e_pos + 1));
  const int decpt = exponent + 1;  // position of the decimal point relative to the digits
  const int n = static_cast<int>(digits.size());
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
    } else if (decpt >= n) {
      out = digits + std::string(static_cast<std::size_t>(decpt - n), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(decpt)) + "." +
            digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    const int e = decpt - 1;
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    out += ebuf;
  }
  return sign + out;
}

std::string repr(const Json& v) {
  switch (v.type()) {
    case Json::value_t::string:
      return repr_str(v.get_ref<const std::string&>());
    case Json::value_t::array: {
      std::string out = "[";
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ", ";
        first = false;
        out += repr(e);
      }
      return out + "]";
    }
    case Json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        if (!first) out += ", ";
        first = false;
        out += repr_str(k) + ": " + repr(e);
      }
      return out + "}";
    }
    default:
      return str(v);
  }
}

std::string str(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "None";
    case Json::value_t::boolean:
      return v.get<bool>() ? "True" : "False";
    case Json::value_t::number_integer:
      return std::to_string(v.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<std::uint64_t>());
    case Json::value_t::number_float:
      return float_repr(v.get<double>());
    case Json::value_t::string:
      return v.get<std::string>();
    default:
      return repr(v);
  }
}

std::string str(const Ref& v) {
  return v.defined() ? str(*v) : std::string();
}

bool truthy(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return false;
    case Json::value_t::boolean:
      return v.get<bool>();
    case Json::value_t::number_integer:
      return v.get<std::int64_t>() != 0;
    case Json::value_t::number_unsigned:
      return v.get<std::uint64_t>() != 0;
    case Json::value_t::number_float:
      return v.get<double>() != 0.0;
    case Json::value_t::string:
      return !v.get_ref<const std::string&>().empty();
    case Json::value_t::array:
    case Json::value_t::object:
      return !v.empty();
    default:
      return false;
  }
}

bool truthy(const Ref& v) {
  return v.defined() && truthy(*v);
}

bool equal(const Json& a, const Json& b) {
  auto numeric = [](const Json& x) { return x.is_number() || x.is_boolean(); };
  auto as_double = [](const Json& x) {
    return x.is_boolean() ? (x.get<bool>() ? 1.0 : 0.0) : x.get<double>();
  };
  if (numeric(a) && numeric(b)) {
    if (a.is_number_integer() && b.is_number_integer()) {
      if (a.is_number_unsigned() != b.is_number_unsigned()) {
        const Json& s = a.is_number_unsigned() ? b : a;
        const Json& u = a.is_number_unsigned() ? a : b;
        return s.get<std::int64_t>() >= 0 &&
               static_cast<std::uint64_t>(s.get<std::int64_t>()) == u.get<std::uint64_t>();
      }
      return a == b;
    }
    return as_double(a) == as_double(b);
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!equal(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items()) {
      auto it = b.find(k);
      if (it == b.end() || !equal(v, *it)) return false;
    }
    return true;
  }
  return a == b;
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  utf8::for_each(s, [&](char32_t, std::string_view) { ++n; });
  return n;
}

std::size_t length(const Json& v) {
  if (v.is_string()) return code_points(v.get_ref<const std::string&>());
  if (v.is_array() || v.is_object()) return v.size();
  raise_type_error("object of type '" + type_name(v) + "' has no len()");
}

std::size_t length(const Ref& v) {
  return v.defined() ? length(*v) : 0;
}

bool contains(const Ref& haystack, const Json& needle) {
  if (!haystack.defined()) return false;
  const Json& h = *haystack;
  if (h.is_string()) {
    if (!needle.is_string()) {
      raise_type_error("'in <string>' requires string as left operand, not " + type_name(needle));
    }
    return h.get_ref<const std::string&>().find(needle.get_ref<const std::string&>()) != std::string::npos;
  }
  if (h.is_array()) {
    for (const auto& e : h) {
      if (equal(e, needle)) return true;
    }
    return false;
  }
  if (h.is_object()) {
    return needle.is_string() && h.contains(needle.get_ref<const std::string&>());
  }
  raise_type_error("argument of type '" + type_name(h) + "' is not iterable");
}

std::string strip(std::string_view s) {
  std::size_t begin = 0;
  std::size_t end = s.size();
  // Leading whitespace.
  while (begin < end) {
    auto [c, len] = utf8::decode(s.substr(begin));
    if (!is_python_space(c)) break;
    begin += len;
  }
  // Trailing whitespace: step back over whole code points.
  while (end > begin) {
    std::size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80) --start;
    auto [c, len] = utf8::decode(s.substr(start, end - start));
    if (len != end - start || !is_python_space(c)) break;
    end = start;
  }
  return std::string(s.substr(begin, end - begin));
}

std::string trim(const Ref& v) {
  return strip(str(v));
}

void append(std::string& s, const Ref& v) {
  if (!v.defined()) raise_undefined(v.undefined_hint);
  append(s, *v);
}

void append(std::string& s, const Json& v) {
  if (!v.is_string()) raise_type_error("can only concatenate str (not \"" + type_name(v) + "\") to str");
  s += v.get_ref<const std::string&>();
}

std::string left_operand(const Ref& v, std::string_view right_type) {
  if (!v.defined()) raise_undefined(v.undefined_hint);
  const Json& j = *v;
  if (j.is_string()) {
    if (right_type != "str") {
      raise_type_error("can only concatenate str (not \"" + std::string(right_type) + "\") to str");
    }
    return j.get<std::string>();
  }
  if (j.is_array()) {
    raise_type_error("can only concatenate list (not \"" + std::string(right_type) + "\") to list");
  }
  raise_type_error("unsupported operand type(s) for +: '" + type_name(j) + "' and '" +
                   std::string(right_type) + "'");
}

void require_iterable(const Ref& v) {
  if (!v.defined()) return;
  const Json& j = *v;
  if (j.is_string() || j.is_array() || j.is_object()) return;
  raise_type_error("'" + type_name(j) + "' object is not iterable");
}

void raise_template_error(std::string_view message) {
  throw Error(kTemplateErrorCode, "TemplateError: " + std::string(message));
}

void raise_type_error(std::string_view message) {
  throw Error(kTemplateErrorCode, "TypeError: " + std::string(message));
}

void raise_undefined(std::string_view hint) {
  throw Error(kTemplateErrorCode, "UndefinedError: " + std::string(hint));
}

}  // namespace a3s::power::chat::py

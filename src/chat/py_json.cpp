#include "chat/py_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json_string.h"
#include "chat/py_value.h"
#include "chat/utf8.h"

namespace a3s::power::chat::py {
namespace {

void write_string(std::string& out, const std::string& s, const DumpsOptions& o) {
  if (!o.ensure_ascii) {
    append_json_string(out, s);
    return;
  }
  // ASCII runs are escaped as usual; every other code point becomes \uXXXX.
  out += '"';
  std::string run;
  auto flush = [&] {
    if (run.empty()) return;
    std::string quoted;
    append_json_string(quoted, run);
    out.append(quoted, 1, quoted.size() - 2);
    run.clear();
  };
  utf8::for_each(s, [&](char32_t c, std::string_view bytes) {
    if (c < 0x80 || c == utf8::kInvalid) {
      run += bytes;
      return;
    }
    flush();
    char buf[16];
    if (c >= 0x10000) {
      const char32_t v = c - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", static_cast<unsigned>(0xd800 + (v >> 10)),
                    static_cast<unsigned>(0xdc00 + (v & 0x3ff)));
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
    }
    out += buf;
  });
  flush();
  out += '"';
}

void write(std::string& out, const Json& v, const DumpsOptions& o, int level) {
  const std::optional<int>& indent = o.indent;
  const std::string& item_sep = o.separators ? o.separators->first : (indent ? std::string(",") : std::string(", "));
  const std::string& key_sep = o.separators ? o.separators->second : std::string(": ");
  auto newline = [&](int lvl) {
    out += '\n';
    out.append(static_cast<std::size_t>(*indent) * static_cast<std::size_t>(lvl), ' ');
  };
  switch (v.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      out += std::to_string(v.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned:
      out += std::to_string(v.get<std::uint64_t>());
      return;
    case Json::value_t::number_float: {
      const double d = v.get<double>();
      if (std::isnan(d)) {
        out += "NaN";
      } else if (std::isinf(d)) {
        out += d < 0 ? "-Infinity" : "Infinity";
      } else {
        out += float_repr(d);
      }
      return;
    }
    case Json::value_t::string:
      write_string(out, v.get_ref<const std::string&>(), o);
      return;
    case Json::value_t::array: {
      if (v.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += item_sep;
        first = false;
        if (indent) newline(level + 1);
        write(out, e, o, level + 1);
      }
      if (indent) newline(level);
      out += ']';
      return;
    }
    case Json::value_t::object: {
      if (v.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      std::vector<std::pair<const std::string*, const Json*>> items;
      for (const auto& [k, e] : v.items()) items.emplace_back(&k, &e);
      if (o.sort_keys) {
        std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
      }
      for (const auto& [k, e] : items) {
        if (!first) out += item_sep;
        first = false;
        if (indent) newline(level + 1);
        write_string(out, *k, o);
        out += key_sep;
        write(out, *e, o, level + 1);
      }
      if (indent) newline(level);
      out += '}';
      return;
    }
    default:
      out += "null";
  }
}

}  // namespace

std::string dumps(const nlohmann::ordered_json& value, std::optional<int> indent) {
  DumpsOptions o;
  o.indent = indent;
  return dumps(value, o);
}

std::string dumps(const nlohmann::ordered_json& value, const DumpsOptions& options) {
  std::string out;
  write(out, value, options, 0);
  return out;
}

}  // namespace a3s::power::chat::py

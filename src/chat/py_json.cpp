#include "chat/py_json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "base/json_string.h"
#include "chat/py_value.h"

namespace a3s::power::chat::py {
namespace {

void write(std::string& out, const Json& v, std::optional<int> indent, int level) {
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
      append_json_string(out, v.get_ref<const std::string&>());
      return;
    case Json::value_t::array: {
      if (v.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += indent ? "," : ", ";
        first = false;
        if (indent) newline(level + 1);
        write(out, e, indent, level + 1);
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
      for (const auto& [k, e] : v.items()) {
        if (!first) out += indent ? "," : ", ";
        first = false;
        if (indent) newline(level + 1);
        append_json_string(out, k);
        out += ": ";
        write(out, e, indent, level + 1);
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
  std::string out;
  write(out, value, indent, 0);
  return out;
}

}  // namespace a3s::power::chat::py

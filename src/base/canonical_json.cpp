#include "base/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "a3s/power/error.h"
#include "base/json_string.h"
#include "base/utf8.h"

namespace a3s::power {
namespace {

[[noreturn]] void reject(const std::string& path, const std::string& why) {
  throw Error(codes::kInvalidArgument,
              "canonical JSON at " + (path.empty() ? std::string("$") : path) + ": " + why);
}

// Decodes UTF-8 into UTF-16 code units; rejects overlong forms, surrogates, values above U+10FFFF and
// truncated sequences.
std::u16string utf16_of(const std::string& s, const std::string& path) {
  std::u16string out;
  size_t i = 0;
  while (i < s.size()) {
    const Utf8Char c = decode_utf8(s, i);
    if (c.status != Utf8Status::kOk) {
      // "truncated" when the string ends before the length the lead byte announces, whatever the
      // bytes before the end are; anything else is "invalid".
      const bool truncated = decode_utf8(s, i, Utf8Rules::kShapeOnly).status == Utf8Status::kTruncated;
      reject(path, truncated ? "truncated UTF-8" : "invalid UTF-8");
    }
    uint32_t cp = c.code_point;
    const size_t len = c.length;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += len;
  }
  return out;
}

void write_string(const std::string& s, const std::string& path, std::string& out) {
  (void)utf16_of(s, path);  // validates
  append_json_string(out, s);
}


// ECMAScript Number.prototype.toString (ECMA-262 §6.1.6.1.20) of a finite double: the shortest
// digits that round-trip (std::to_chars guarantees the shortest, closest representation), laid out
// by the exponent.
void write_double(double x, const std::string& path, std::string& out) {
  if (!std::isfinite(x)) reject(path, "numbers must be finite");
  if (x == 0) {  // +0 and -0
    out += '0';
    return;
  }
  if (x < 0) {
    out += '-';
    x = -x;
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  if (res.ec != std::errc()) reject(path, "the number cannot be formatted");
  const std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));  // d[.ddd]e±XX
  const size_t e = sci.find('e');
  std::string digits(1, sci[0]);
  if (e > 1) digits.append(sci.substr(2, e - 2));
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // x = 0.digits × 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<size_t>(n));
    out += '.';
    out += digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += n - 1 >= 0 ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
}

// An integer beyond 2^53 - 1 in magnitude is accepted only when the ECMAScript form of the double
// nearest to it is its own decimal digits (9007199254740992, 9223372036854776000): the output then
// parses back to the same integer, so canonical output is a fixed point. Any other integer would have
// its digits changed by rounding, and is refused.
template <typename Int>
void write_integer(Int n, const std::string& path, std::string& out) {
  const std::string digits = std::to_string(n);
  const bool small = n <= static_cast<Int>(kMaxCanonicalInteger) &&
                     (!std::is_signed_v<Int> || n >= static_cast<Int>(-kMaxCanonicalInteger));
  if (!small) {
    std::string as_double;
    write_double(static_cast<double>(n), path, as_double);
    if (as_double != digits)
      reject(path, "an integer beyond 2^53 - 1 whose digits a double does not keep has no exact canonical form");
  }
  out += digits;
}

void write_value(const nlohmann::json& v, const std::string& path, JsonValues set, std::string& out) {
  const bool all = set == JsonValues::kAll;
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      write_string(v.get_ref<const std::string&>(), path, out);
      return;
    case nlohmann::json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case nlohmann::json::value_t::object: {
      std::vector<std::pair<std::u16string, const std::string*>> keys;
      keys.reserve(v.size());
      for (auto it = v.begin(); it != v.end(); ++it) keys.emplace_back(utf16_of(it.key(), path), &it.key());
      std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      bool first = true;
      for (const auto& [unused, key] : keys) {
        if (!first) out.push_back(',');
        first = false;
        write_string(*key, path, out);
        out.push_back(':');
        write_value(v.at(*key), path + "." + *key, set, out);  // keys are valid UTF-8 here (checked above)
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::number_integer:
      if (!all) reject(path, "numbers are not allowed (strings and booleans only)");
      write_integer(v.get<int64_t>(), path, out);
      return;
    case nlohmann::json::value_t::number_unsigned: {
      if (!all) reject(path, "numbers are not allowed (strings and booleans only)");
      write_integer(v.get<uint64_t>(), path, out);
      return;
    }
    case nlohmann::json::value_t::number_float:
      if (!all) reject(path, "numbers are not allowed (strings and booleans only)");
      write_double(v.get<double>(), path, out);
      return;
    case nlohmann::json::value_t::null:
      if (!all) reject(path, "null is not allowed");
      out += "null";
      return;
    case nlohmann::json::value_t::array: {
      if (!all) reject(path, "arrays are not allowed");
      out.push_back('[');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out.push_back(',');
        write_value(v[i], path + "[" + std::to_string(i) + "]", set, out);
      }
      out.push_back(']');
      return;
    }
    default:
      reject(path, "unsupported JSON value type");
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& value, JsonValues set) {
  std::string out;
  write_value(value, "", set, out);
  return out;
}

}  // namespace a3s::power

#include "base/canonical_json.h"

#include <algorithm>
#include <cstdint>
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

void write_value(const nlohmann::json& v, const std::string& path, std::string& out) {
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
        write_value(v.at(*key), path + "." + *key, out);  // keys are valid UTF-8 here (checked above)
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      reject(path, "numbers are not allowed (strings and booleans only)");
    case nlohmann::json::value_t::null:
      reject(path, "null is not allowed");
    case nlohmann::json::value_t::array:
      reject(path, "arrays are not allowed");
    default:
      reject(path, "unsupported JSON value type");
  }
}

}  // namespace

std::string canonical_json(const nlohmann::json& value) {
  std::string out;
  write_value(value, "", out);
  return out;
}

}  // namespace a3s::power

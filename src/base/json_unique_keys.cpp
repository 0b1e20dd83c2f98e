#include "base/json_unique_keys.h"

#include <set>
#include <vector>

namespace a3s::power {

std::optional<nlohmann::json> parse_json_unique_keys(std::string_view text, std::string& error) {
  using nlohmann::json;
  std::vector<std::set<std::string>> open;  // the keys seen so far in each object being parsed
  bool repeated = false;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open.empty() && parsed.is_string() && !open.back().insert(parsed.get<std::string>()).second)
          repeated = true;
        break;
      default:
        break;
    }
    return true;
  };
  json j = json::parse(text.begin(), text.end(), check, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error = kNotJson;
    return std::nullopt;
  }
  if (repeated) {
    error = kRepeatedKey;
    return std::nullopt;
  }
  return j;
}

}  // namespace a3s::power

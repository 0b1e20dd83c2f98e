// Parsing JSON whose objects must not repeat a key (RFC 8785 §3.1 / I-JSON, RFC 7493 §2.3).
// nlohmann::json keeps the last of repeated keys silently, so a signed object and the value a reader
// acts on could differ; signed or security-relevant documents are parsed with this instead.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace a3s::power {

inline constexpr const char* kNotJson = "not JSON";
inline constexpr const char* kRepeatedKey = "a JSON object repeats a key";

// Parses `text` as one JSON value. std::nullopt, with `error` set, when it is not JSON (kNotJson) or
// when any object at any depth has a key twice (kRepeatedKey; the key itself is never part of the
// message). Never throws for anything in `text`.
std::optional<nlohmann::json> parse_json_unique_keys(std::string_view text, std::string& error);

}  // namespace a3s::power

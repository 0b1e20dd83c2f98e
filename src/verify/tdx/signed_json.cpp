#include "verify/tdx/signed_json.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "base/hex.h"
#include "verify/tdx/collateral_fields.h"
#include "verify/tdx/ecdsa_p256.h"

namespace a3s::power::verify::tdx {
namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void skip_ws(std::string_view s, size_t& i) {
  while (i < s.size() && is_ws(s[i])) ++i;
}

// At an opening quote: moves past the closing quote; false if unterminated.
bool skip_string(std::string_view s, size_t& i) {
  ++i;
  while (i < s.size()) {
    if (s[i] == '\\') {
      i += 2;
    } else if (s[i] == '"') {
      ++i;
      return true;
    } else {
      ++i;
    }
  }
  return false;
}

// Moves past one JSON value (objects and arrays by bracket balance); false on malformed text.
bool skip_value(std::string_view s, size_t& i) {
  if (i >= s.size()) return false;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      char c = s[i];
      if (c == '"') {
        if (!skip_string(s, i)) return false;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) {
          ++i;
          return true;
        }
      }
      ++i;
    }
    return false;
  }
  size_t start = i;
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !is_ws(s[i])) ++i;
  return i > start;
}

}  // namespace

std::optional<std::string_view> raw_json_member(std::string_view s, std::string_view key) {
  size_t i = 0;
  skip_ws(s, i);
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  ++i;
  std::optional<std::string_view> found;
  while (true) {
    skip_ws(s, i);
    if (i >= s.size() || s[i] != '"') return std::nullopt;
    size_t name_start = i + 1;
    if (!skip_string(s, i)) return std::nullopt;
    std::string_view name = s.substr(name_start, i - 1 - name_start);
    skip_ws(s, i);
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    ++i;
    skip_ws(s, i);
    size_t value_start = i;
    if (!skip_value(s, i)) return std::nullopt;
    if (name == key) {
      if (found) return std::nullopt;  // a duplicate member would let a parser read unsigned text
      found = s.substr(value_start, i - value_start);
    }
    skip_ws(s, i);
    if (i < s.size() && s[i] == '}') return found;
    if (i >= s.size() || s[i] != ',') return std::nullopt;
    ++i;
  }
}

std::string_view verified_json_body(std::string_view document, std::string_view body_key, EVP_PKEY* key) {
  const std::string what = "\"" + std::string(body_key) + "\"";
  auto body = raw_json_member(document, body_key);
  if (!body) throw std::runtime_error(what + " object missing, duplicated or not well-formed");
  auto sig_text = raw_json_member(document, "signature");
  if (!sig_text) throw std::runtime_error("\"signature\" missing or duplicated");
  nlohmann::json sig_json = nlohmann::json::parse(*sig_text, nullptr, false);
  if (sig_json.is_discarded() || !sig_json.is_string())
    throw std::runtime_error("\"signature\" is not a string");
  std::vector<uint8_t> sig(64);
  if (!decode_hex(sig_json.get<std::string>(), sig)) throw std::runtime_error("\"signature\" is not 64 hex bytes (r||s)");
  std::span<const uint8_t> message(reinterpret_cast<const uint8_t*>(body->data()), body->size());
  if (!ecdsa_p256_verify(key, message, sig)) {
    throw std::runtime_error("signature over " + what + " does not verify with the TCB signing key");
  }
  return *body;
}

}  // namespace a3s::power::verify::tdx

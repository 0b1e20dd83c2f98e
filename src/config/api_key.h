// API keys: clients present a raw bearer key; the server keeps only its SHA-256 (FIPS 180-4).
// Config files may hold either the raw key (hashed on load, then wiped) or the digest written as
// "sha256:" followed by 64 hex digits (either case).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace a3s::power::config {

using KeyDigest = std::array<uint8_t, 32>;

// SHA-256 of the raw key bytes.
KeyDigest hash_raw_key(std::string_view raw_key);

// Parses "sha256:<64 hex>"; nullopt if the text has any other form.
std::optional<KeyDigest> parse_key_digest(std::string_view text);

}  // namespace a3s::power::config

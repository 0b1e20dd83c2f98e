// Field encodings shared by Intel's JSON collateral and the verifier's messages (TCB Info, QE Identity): ISO
// 8601 UTC times
// ("2041-08-06T13:55:15Z") and fixed-length hex strings (upper or lower case).
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::verify::tdx {

// Unix seconds of "YYYY-MM-DDTHH:MM:SSZ" (fractional seconds ".sss" allowed and dropped);
// nullopt for any other shape.
std::optional<std::time_t> parse_iso8601_utc(std::string_view text);

// Bytes of a hex string of exactly `n_bytes` bytes (2 * n_bytes digits); nullopt otherwise.
std::optional<std::vector<uint8_t>> parse_hex(std::string_view text, size_t n_bytes);

// Lowercase hex of `bytes` (for messages and reports).
std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace a3s::power::verify::tdx

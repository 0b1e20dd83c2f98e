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

}  // namespace a3s::power::verify::tdx

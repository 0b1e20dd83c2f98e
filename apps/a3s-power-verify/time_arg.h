// --at TIME: the instant every certificate, CRL and collateral validity check uses.
#pragma once

#include <ctime>
#include <string_view>

namespace a3s::power::verify::cli {

// Accepts an ISO 8601 date "2025-09-01" (midnight UTC) or an RFC 3339 date-time
// "2025-09-01T12:30:00Z", "2025-09-01T12:30:00.5+02:00" ('T' or ' ' between date and time, 'Z' or a
// numeric offset; fractional seconds are dropped). Returns Unix seconds (UTC).
// Throws a3s::power::Error "invalid_argument" for anything else (including out-of-range fields).
std::time_t parse_time(std::string_view text);

}  // namespace a3s::power::verify::cli

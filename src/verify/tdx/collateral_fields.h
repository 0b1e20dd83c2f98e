// Field encodings shared by Intel's JSON collateral and the verifier's messages (TCB Info, QE Identity): ISO
// 8601 UTC times
// ("2041-08-06T13:55:15Z") and fixed-length hex strings (upper or lower case); and the header fields both
// collateral objects begin with.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::verify::tdx {

// The fields every Intel collateral object begins with: TdxTcbInfo and QeIdentity extend it.
struct CollateralHeader {
  std::string id;
  int version = 0;
  std::time_t issue_date = 0;   // Unix seconds
  std::time_t next_update = 0;  // Unix seconds
};

// Unix seconds of "YYYY-MM-DDTHH:MM:SSZ" (fractional seconds ".sss" allowed and dropped);
// nullopt for any other shape.
std::optional<std::time_t> parse_iso8601_utc(std::string_view text);

}  // namespace a3s::power::verify::tdx

// a3s-power-verify exit statuses (stable; scripts match on them).
#pragma once

#include <string>

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {

inline constexpr int kExitAccepted = 0;  // the evidence verified and met the policy
inline constexpr int kExitInternal = 1;  // a bug or an unexpected library failure
inline constexpr int kExitUsage = 2;     // bad flags or values, unreadable files (nothing was verified)
inline constexpr int kExitRejected = 3;  // the evidence was verified and rejected (failed_step says why)

// Exit status for an a3s::power::Error code raised before verification ran: bad input (invalid_argument,
// io_error) and a mode this build profile leaves out (not_built) are usage errors, anything else internal.
int exit_status_for(ErrorCode error_code);

}  // namespace a3s::power::verify::cli

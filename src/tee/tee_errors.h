// Error codes of the TEE platform layer (a3s::power::Error::code()). Messages are one line and name
// files, devices, fields and steps — never request text.
#pragma once

#include "a3s/power/error.h"

namespace a3s::power::tee::codes {

using namespace ::a3s::power::codes;  // the shared codes (invalid_argument, internal_error, …)

// No usable evidence provider under tee_policy "strict" (a startup error).
inline constexpr const char* kTeeUnavailable = "tee_unavailable";
// The platform returned no evidence, or evidence that does not parse or does not carry the requested
// report_data (device / configfs-tsm errors included).
inline constexpr const char* kAttestationFailed = "attestation_failed";

}  // namespace a3s::power::tee::codes

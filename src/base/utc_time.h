// The current time as an RFC 3339 UTC timestamp with whole seconds, e.g. "2026-11-29T10:08:24Z"
// (RFC 3339 §5.6, "Z" offset): store manifests' "created" and attestation responses' "generated_at".
#pragma once

#include <string>

namespace a3s::power {

std::string rfc3339_utc_now();

}  // namespace a3s::power

// The TEE policy (`tee_policy` in the configuration): how the platform layer treats a machine without
// attestation hardware.
//   strict       no evidence provider found → startup error; simulated evidence is never produced.
//   development  no evidence provider found → the simulated provider (clearly labelled evidence).
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::tee {

enum class TeePolicy { kStrict, kDevelopment };

// "strict" | "development".
const char* to_string(TeePolicy policy);

// Parses "strict" | "development"; throws a3s::power::Error(codes::kInvalidArgument) otherwise.
TeePolicy parse_tee_policy(std::string_view text);

}  // namespace a3s::power::tee

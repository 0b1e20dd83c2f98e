// What a binary is: the product version, the build profile it was configured as and the git commit it
// was built from, for `--version` (a3s-power, a3s-power-verify).
//
// The profile is the name of the preset whose options the build has (CMakePresets.json: "default",
// "embedded", "tee-minimal", "verifier"), or "custom". The commit is 12 hex digits of `git rev-parse
// HEAD`, followed by "-dirty" when tracked files differed from it at build time, or "unknown" when the
// sources were not a git checkout. Written at build time by cmake/build_info.cmake; no timestamps, so
// two builds of one commit are byte-identical.
#pragma once

#include <string>
#include <string_view>

#include "a3s/power/error.h"

namespace a3s::power {

std::string_view product_version() noexcept;  // "0.1.0"
std::string_view build_profile() noexcept;    // "default", "embedded", "tee-minimal", "verifier", "custom"
std::string_view build_commit() noexcept;     // "1e5dde1abc12", "1e5dde1abc12-dirty" or "unknown"

// The --version text of `program`, three lines without a final newline:
//   <program> <version>
//   profile: <profile>
//   commit: <commit>
std::string version_text(std::string_view program);

// The error for a command, mode or route this build profile leaves out: Error(codes::kNotBuilt,
// "<what> is not built into this profile (<profile>: <reason>)"), e.g. what "a3s-power pull", reason
// "built without libcurl".
Error not_built(std::string_view what, std::string_view reason);

}  // namespace a3s::power

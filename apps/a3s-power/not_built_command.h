// A subcommand this build profile leaves out (README "Build profiles"): it keeps its name in --help,
// marked as not built, and running it, with any arguments, fails with Error(codes::kNotBuilt) naming
// the command and the profile ("a3s-power pull is not built into this profile (tee-minimal: built
// without libcurl)"), exit 2.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace a3s::power::cli {

// `reason`: what the profile lacks, e.g. "built without libcurl".
void add_not_built_command(CLI::App& root, const std::string& name, const std::string& description,
                           const std::string& reason);

}  // namespace a3s::power::cli

// The encrypted-model and integrity CLI tests run the real a3s-power binary in a controlled
// environment (support/process.h does the running).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace a3s::power::enc_test {

inline const std::string kBin = testing::bin_path("a3s-power");

using CliRun = testing::ProcessResult;
using Dir = testing::TempDir;

inline std::string slurp(const std::string& path) { return testing::read_text_file(path); }

// Runs a3s-power with `args`. A3S_MODEL_KEY, A3S_POWER_HOME and A3S_POWER_TEE_MODE are removed from
// the environment unless `env` sets them; A3S_POWER_HOME points at an empty private directory by
// default so no user config is read.
inline CliRun run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  testing::RunOptions o;
  o.private_home = true;
  o.env = {{"A3S_MODEL_KEY", std::nullopt}, {"A3S_POWER_TEE_MODE", std::nullopt}};
  for (const auto& [k, v] : env) o.env[k] = v;
  return testing::run_process(kBin, args, o);
}

// True when the binary has subcommand `name` (a build without the server layer lacks `run` and
// `serve`): its own help names it in the usage line, the top-level help would not.
inline bool has_command(const std::string& name) {
  const CliRun r = run({name, "--help"});
  return r.status == 0 && r.out.find("a3s-power " + name) != std::string::npos;
}

}  // namespace a3s::power::enc_test

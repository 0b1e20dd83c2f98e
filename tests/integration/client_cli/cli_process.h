// The client CLI tests' view of support/process.h and support/server_process.h: one-off a3s-power
// commands with captured output, the server on an ephemeral port, and interactive sessions on a
// pseudo-terminal. Every child gets A3S_POWER_API_KEY removed and A3S_POWER_HOME set to a fresh
// directory unless `env` says otherwise.
#pragma once

#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

#include <string>
#include <vector>

namespace a3s::power::client_cli {

using testing::EnvChanges;
using testing::stories_model;  // <testdata>/models/stories260K.gguf
using testing::TempDir;
using testing::testdata_dir;
using CliResult = testing::ProcessResult;

// stories260K's greedy continuation of "Once upon a time" (with BOS): the text of the first 8 tokens.
inline const std::string kGreedy8 = ", there was a little girl";

inline std::string bin_path() { return testing::bin_path("a3s-power"); }

inline EnvChanges client_environment(const EnvChanges& env) {
  EnvChanges all = {{"A3S_POWER_API_KEY", std::nullopt}};
  for (const auto& [k, v] : env) all[k] = v;
  return all;
}

// Runs a3s-power with `args`, `input` on stdin (a regular file, so not a terminal), and waits.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "",
                         const EnvChanges& env = {}) {
  testing::RunOptions o;
  o.input = input;
  o.private_home = true;
  o.env = client_environment(env);
  return testing::run_process(bin_path(), args, o);
}

// `a3s-power serve --host 127.0.0.1 --port 0 --threads 1 <args>`.
class ServerProcess : public testing::ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& args, const EnvChanges& env = {})
      : testing::ServerProcess(with_one_thread(args), env) {}

 private:
  static std::vector<std::string> with_one_thread(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"--threads", "1"};
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }
};

// An interactive a3s-power session on a pseudo-terminal.
class PtySession : public testing::PtySession {
 public:
  explicit PtySession(const std::vector<std::string>& args, const EnvChanges& env = {})
      : testing::PtySession(bin_path(), args, client_environment(env)) {}
};

}  // namespace a3s::power::client_cli

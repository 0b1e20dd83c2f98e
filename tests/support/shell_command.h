// Runs a shell command line from an end-to-end test and captures its output and exit status.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace a3s::power::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout, and stderr unless dropped
};

inline CommandResult run_command(const std::string& command, bool with_stderr = true) {
  CommandResult r;
  FILE* p = popen((command + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (p == nullptr) return r;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = pclose(p);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace a3s::power::testing

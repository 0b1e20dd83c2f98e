// Running executables from tests: the one place that spawns a child process, waits for it (with a
// hang guard), and captures what it wrote.
//
// - run_process(): runs an executable with arguments, optional stdin bytes and environment changes,
//   and returns its exit status, stdout and stderr. The child's stdin is a regular file (never a
//   terminal); stdout and stderr go to files in a private directory, so a chatty child never blocks
//   on a full pipe. A child still running at the timeout is killed (a hang guard for a broken build,
//   never a speed requirement).
// - run_shell(): a shell command line through /bin/sh -c, stdout and (unless dropped) stderr merged.
// - spawn_process() / wait_for_exit(): the same spawn and wait code for the long-running children
//   (support/server_process.h) and the pseudo-terminal sessions (PtySession).
// - bin_path(): an executable of the build ($A3S_BIN_DIR, else the build's bin directory).
#pragma once

#include "support/temp_dir.h"

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace a3s::power::testing {

// Environment changes for a child: a value sets the variable, nullopt removes it. Everything else is
// inherited from the test process.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

struct ProcessResult {
  int status = -1;  // exit status; -1 when killed by a signal (or by the timeout)
  std::string out, err;
  bool timed_out = false;
};

struct RunOptions {
  std::string input;             // the child's stdin (a regular file holding these bytes)
  EnvChanges env;                // applied after private_home
  bool private_home = false;     // A3S_POWER_HOME set to a fresh empty directory (no user config)
  bool merge_stderr = false;     // stderr into `out` as well (interleaved as written)
  bool drop_stderr = false;      // stderr to /dev/null
  std::chrono::seconds timeout{300};
};

// $A3S_BIN_DIR, else the build's A3S_BIN_DIR; bin_path(name) is bin_dir()/name.
std::string bin_dir();
std::string bin_path(const std::string& name);

// This process's environment with `env` applied, as NAME=VALUE strings.
std::vector<std::string> child_environment(const EnvChanges& env);

// The standard streams of a spawned child: a path opened for it (read for stdin, created and
// truncated for stdout / stderr), "" for the test process's own stream, or for stdout a
// descriptor of ours (out_fd >= 0).
struct ChildStdio {
  std::string in = "/dev/null", out = "/dev/null", err = "/dev/null";
  int out_fd = -1;            // used instead of `out` when >= 0 (closed in the child only)
  bool err_to_out = false;    // stderr is the same file as stdout
};

// Starts `exe args...` with environment `env` (NAME=VALUE strings). Throws std::runtime_error when
// the process cannot be started; an executable that cannot be run exits with status 127.
pid_t spawn_process(const std::string& exe, const std::vector<std::string>& args,
                    const std::vector<std::string>& env, const ChildStdio& stdio);

// Replaces the calling (child) process by `exe args...` with `env`; _exit(127) on failure.
[[noreturn]] void exec_process(const std::string& exe, const std::vector<std::string>& args,
                               std::vector<std::string> env);

// Waits for `pid` up to `timeout`, then SIGKILLs it. The exit status; -1 if it died by a signal or
// was killed. Sets *timed_out when the timeout fired.
int wait_for_exit(pid_t pid, std::chrono::milliseconds timeout, bool* timed_out = nullptr);

// The whole content of a file ("" when it cannot be read).
std::string read_text_file(const std::string& path);

ProcessResult run_process(const std::string& exe, const std::vector<std::string>& args,
                          const RunOptions& options = {});

// `s` as one /bin/sh word (single-quoted).
std::string shell_quote(const std::string& s);

// `/bin/sh -c command`: `out` holds stdout, then stderr merged in unless `with_stderr` is false.
ProcessResult run_shell(const std::string& command, bool with_stderr = true);

// The run exited with `status` and wrote exactly one line to stderr (GoogleTest expectations).
void expect_one_line_error(const ProcessResult& r, int status);

// An interactive session on a pseudo-terminal: stdin, stdout and stderr are the terminal, so the
// command sees a TTY. A3S_POWER_HOME is a fresh private directory unless `env` sets it. Killed on
// destruction unless wait() saw it end.
class PtySession {
 public:
  PtySession(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env = {});
  ~PtySession();
  PtySession(const PtySession&) = delete;
  PtySession& operator=(const PtySession&) = delete;

  void send(const std::string& bytes);
  // Reads until the output since the last expect() contains `text`; returns that output (up to
  // and including `text`). Returns nullopt when the session ends first (or the hang guard fires).
  std::optional<std::string> expect(const std::string& text);
  // Waits for the process to end; its exit status (-1 if killed).
  int wait();
  const std::string& transcript() const { return all_; }

 private:
  TempDir home_;
  int master_ = -1;
  pid_t pid_ = -1;
  std::string pending_, all_;
  int status_ = -2;
};

}  // namespace a3s::power::testing

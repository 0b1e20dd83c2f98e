// Running the a3s-power binary from tests: one-off commands with captured output, the server on
// an ephemeral port, and interactive sessions on a pseudo-terminal.
#pragma once

#include "support/temp_dir.h"

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace a3s::power::client_cli {

std::string bin_path();       // $A3S_BIN_DIR/a3s-power (else the build's bin dir)
std::string stories_model();  // <testdata>/models/stories260K.gguf
std::string testdata_dir();

// stories260K's greedy continuation of "Once upon a time" (with BOS): the text of the first 8 tokens.
inline const std::string kGreedy8 = ", there was a little girl";

// A private temporary directory, removed with its contents by the destructor.
using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

struct CliResult {
  int status = -1;  // exit status; -1 when killed by a signal
  std::string out, err;
};

// Environment changes for a child: a value sets the variable, nullopt removes it. Every child
// gets A3S_POWER_API_KEY removed and A3S_POWER_HOME set to a fresh directory unless given here.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// Runs a3s-power with `args`, `input` on stdin (a regular file, so not a terminal), and waits
// (killing it after a generous hang guard).
CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "",
                  const EnvChanges& env = {});

// `a3s-power serve --host 127.0.0.1 --port 0 --threads 1 <args>`; ready once it printed its
// "listening on http://HOST:PORT" line. SIGTERM on destruction.
class ServerProcess {
 public:
  explicit ServerProcess(const std::vector<std::string>& args, const EnvChanges& env = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool ready() const { return port_ > 0; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() const;  // its stderr so far

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// An interactive a3s-power session on a pseudo-terminal (stdin, stdout and stderr are the
// terminal, so the command sees a TTY).
class PtySession {
 public:
  explicit PtySession(const std::vector<std::string>& args, const EnvChanges& env = {});
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

}  // namespace a3s::power::client_cli

// Starts the real `a3s-power serve` binary on an ephemeral loopback port for end-to-end tests:
// waits for its "listening on http://HOST:PORT" line, keeps its stderr in a log file, and stops it
// with SIGTERM (graceful shutdown) when done. Spawning and waiting are support/process.h's.
#pragma once

#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

#include <sys/types.h>

#include <string>
#include <vector>

namespace a3s::power::testing {

// A fresh private directory under $TMPDIR (removed by the destructor).
using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

class ServerProcess {
 public:
  // Runs `a3s-power serve --port 0 [--host 127.0.0.1 unless args has --host] <args>` in an
  // environment without A3S_POWER_* variables, then `env` applied (A3S_POWER_HOME defaults to a
  // private temporary directory).
  // `launcher`: a command the binary runs under (e.g. {"/usr/bin/setpriv", "--bounding-set", …}),
  // given the binary's path and arguments after its own.
  explicit ServerProcess(std::vector<std::string> args, EnvChanges env = {}, std::vector<std::string> launcher = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool ready() const { return port_ > 0; }
  int port() const { return port_; }
  int tls_port() const { return tls_port_; }  // the RA-TLS listener's port (ratls = true), else 0
  long long vsock_port() const { return vsock_port_; }  // the vsock listener's port (vsock_port), else -1
  pid_t pid() const { return pid_; }
  std::string url(const std::string& path = "") const;
  std::string log() const;  // stderr so far (for failure messages)
  const std::string& listening_line() const { return line_; }

  // SIGTERM and wait; returns the exit status (-1 if killed by a signal or not running).
  int stop();
  // Resident set size in KiB from /proc/<pid>/status (VmRSS).
  long rss_kib() const;

 private:
  TempDir home_;
  pid_t pid_ = -1;
  int port_ = 0;
  int tls_port_ = 0;
  long long vsock_port_ = -1;
  std::string line_;
  std::string log_path_;
  int exit_status_ = -1;
};

}  // namespace a3s::power::testing

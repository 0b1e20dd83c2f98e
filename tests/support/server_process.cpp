#include "support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace a3s::power::testing {

ServerProcess::ServerProcess(std::vector<std::string> args, EnvChanges env, std::vector<std::string> launcher) {
  log_path_ = home_.path() + "/server.log";
  std::vector<std::string> full_args = {"serve", "--port", "0"};
  if (std::find(args.begin(), args.end(), "--host") == args.end()) {
    full_args.push_back("--host");
    full_args.push_back("127.0.0.1");
  }
  full_args.insert(full_args.end(), args.begin(), args.end());

  EnvChanges changes;
  for (char** e = environ; e && *e; ++e) {  // start clean
    const std::string kv = *e;
    if (kv.rfind("A3S_POWER_", 0) == 0) changes[kv.substr(0, kv.find('='))] = std::nullopt;
  }
  changes["A3S_POWER_HOME"] = home_.path() + "/home";
  for (auto& [k, v] : env) changes[k] = v;

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  ChildStdio stdio;
  stdio.out_fd = out[1];
  stdio.err = log_path_;
  try {
    if (launcher.empty()) {
      pid_ = spawn_process(bin_path("a3s-power"), full_args, child_environment(changes), stdio);
    } else {
      std::vector<std::string> wrapped(launcher.begin() + 1, launcher.end());
      wrapped.push_back(bin_path("a3s-power"));
      wrapped.insert(wrapped.end(), full_args.begin(), full_args.end());
      pid_ = spawn_process(launcher.front(), wrapped, child_environment(changes), stdio);
    }
  } catch (const std::exception&) {
    ::close(out[0]);
    ::close(out[1]);
    pid_ = -1;
    return;
  }
  ::close(out[1]);
  // Read stdout until the listening line (or exit / a 120 s hang guard).
  std::string buf;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) {
      int st;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        exit_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        pid_ = -1;
        break;
      }
      continue;
    }
    char c[256];
    ssize_t n = ::read(out[0], c, sizeof c);
    if (n <= 0) break;
    buf.append(c, static_cast<size_t>(n));
    // An RA-TLS server prints "listening on https://HOST:PORT (RA-TLS)" before the plain line, and a
    // vsock listener "listening on vsock port PORT[ (RA-TLS)]".
    bool done = false;
    for (auto nl = buf.find('\n'); nl != std::string::npos && !done; nl = buf.find('\n')) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (line.rfind("listening on https://", 0) == 0) {
        const auto colon = line.rfind(':');
        tls_port_ = std::atoi(line.c_str() + colon + 1);
        continue;
      }
      static const std::string kVsock = "listening on vsock port ";
      if (line.rfind(kVsock, 0) == 0) {
        vsock_port_ = std::atoll(line.c_str() + kVsock.size());
        continue;
      }
      line_ = line;
      auto colon = line_.rfind(':');
      if (line_.rfind("listening on http://", 0) == 0 && colon != std::string::npos) {
        port_ = std::atoi(line_.c_str() + colon + 1);
      }
      done = true;
    }
    if (done) break;
  }
  ::close(out[0]);
}

ServerProcess::~ServerProcess() { stop(); }

std::string ServerProcess::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::string ServerProcess::log() const { return read_text_file(log_path_); }

int ServerProcess::stop() {
  if (pid_ <= 0) return exit_status_;
  ::kill(pid_, SIGTERM);
  exit_status_ = wait_for_exit(pid_, std::chrono::seconds(30));  // then SIGKILL
  pid_ = -1;
  return exit_status_;
}

long ServerProcess::rss_kib() const {
  std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

}  // namespace a3s::power::testing

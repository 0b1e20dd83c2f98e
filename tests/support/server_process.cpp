#include "support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace a3s::power::testing {

std::string bin_dir() {
  const char* e = std::getenv("A3S_BIN_DIR");
  return e && *e ? e : A3S_BIN_DIR;
}

std::string testdata_dir() {
  const char* e = std::getenv("A3S_TESTDATA");
  return e && *e ? e : A3S_TESTDATA_DIR;
}

std::string stories_model() { return testdata_dir() + "/models/stories260K.gguf"; }

ServerProcess::ServerProcess(std::vector<std::string> args, std::map<std::string, std::string> env) {
  log_path_ = home_.path() + "/server.log";
  std::vector<std::string> argv_s = {bin_dir() + "/a3s-power", "serve", "--port", "0"};
  if (std::find(args.begin(), args.end(), "--host") == args.end()) {
    argv_s.push_back("--host");
    argv_s.push_back("127.0.0.1");
  }
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::map<std::string, std::string> full;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) full[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (auto it = full.begin(); it != full.end();) {
    it = it->first.rfind("A3S_POWER_", 0) == 0 ? full.erase(it) : std::next(it);  // start clean
  }
  full["A3S_POWER_HOME"] = home_.path() + "/home";
  for (auto& [k, v] : env) full[k] = v;
  std::vector<std::string> env_s;
  for (auto& [k, v] : full) env_s.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  int rc = ::posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    pid_ = -1;
    return;
  }
  // Read stdout until the listening line (or exit / 60 s).
  std::string buf;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
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
    // An RA-TLS server prints "listening on https://HOST:PORT (RA-TLS)" before the plain line.
    bool done = false;
    for (auto nl = buf.find('\n'); nl != std::string::npos && !done; nl = buf.find('\n')) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (line.rfind("listening on https://", 0) == 0) {
        const auto colon = line.rfind(':');
        tls_port_ = std::atoi(line.c_str() + colon + 1);
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

std::string ServerProcess::log() const {
  std::ifstream f(log_path_);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int ServerProcess::stop() {
  if (pid_ <= 0) return exit_status_;
  ::kill(pid_, SIGTERM);
  int st = 0;
  for (int i = 0; i < 3000; ++i) {  // up to 30 s, then SIGKILL
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      exit_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
      pid_ = -1;
      return exit_status_;
    }
    ::usleep(10'000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &st, 0);
  pid_ = -1;
  exit_status_ = -1;
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

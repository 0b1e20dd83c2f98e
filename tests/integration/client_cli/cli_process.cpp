#include "cli_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace a3s::power::client_cli {
namespace {

using Clock = std::chrono::steady_clock;
// Hang guards only (a broken build must not block the suite forever); never a speed requirement.
constexpr auto kProcessGuard = std::chrono::seconds(300);
constexpr auto kReadGuard = std::chrono::seconds(120);

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The child's environment: ours, minus A3S_POWER_API_KEY, plus A3S_POWER_HOME=home, then `env`.
std::vector<std::string> child_environment(const std::string& home, const EnvChanges& env) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  vars.erase("A3S_POWER_API_KEY");
  vars["A3S_POWER_HOME"] = home;
  for (const auto& [k, v] : env) {
    if (v) {
      vars[k] = *v;
    } else {
      vars.erase(k);
    }
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

[[noreturn]] void exec_child(const std::vector<std::string>& args, std::vector<std::string> env) {
  std::vector<std::string> argv = {bin_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto a = c_strings(argv);
  auto e = c_strings(env);
  ::execve(a[0], a.data(), e.data());
  ::_exit(127);
}

int wait_with_guard(pid_t pid) {
  const auto deadline = Clock::now() + kProcessGuard;
  int st = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

std::string testdata_dir() {
  const char* e = std::getenv("A3S_TESTDATA");
  return e != nullptr && *e != '\0' ? std::string(e) : std::string(A3S_TESTDATA_DIR);
}

std::string bin_path() {
  const char* e = std::getenv("A3S_BIN_DIR");
  return (e != nullptr && *e != '\0' ? std::string(e) : std::string(A3S_BIN_DIR)) + "/a3s-power";
}

std::string stories_model() {
  return testdata_dir() + "/models/stories260K.gguf";
}

CliResult run_cli(const std::vector<std::string>& args, const std::string& input, const EnvChanges& env) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("home"));
  { std::ofstream(dir.file("in"), std::ios::binary) << input; }
  std::vector<std::string> envv = child_environment(dir.file("home"), env);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int in = ::open(dir.file("in").c_str(), O_RDONLY);
    int out = ::open(dir.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(dir.file("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    exec_child(args, std::move(envv));
  }
  CliResult r;
  r.status = wait_with_guard(pid);
  r.out = slurp(dir.file("out"));
  r.err = slurp(dir.file("err"));
  return r;
}

ServerProcess::ServerProcess(const std::vector<std::string>& args, const EnvChanges& env) {
  std::filesystem::create_directory(dir_.file("home"));
  std::vector<std::string> full = {"serve", "--host", "127.0.0.1", "--port", "0", "--threads", "1"};
  full.insert(full.end(), args.begin(), args.end());
  std::vector<std::string> envv = child_environment(dir_.file("home"), env);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int err = ::open(dir_.file("log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (err < 0 || devnull < 0) ::_exit(126);
    ::dup2(devnull, 0);
    ::dup2(fds[1], 1);
    ::dup2(err, 2);
    exec_child(full, std::move(envv));
  }
  ::close(fds[1]);
  // Read the listening line.
  std::string line;
  const auto deadline = Clock::now() + kReadGuard;
  while (line.find('\n') == std::string::npos && Clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[256];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the server exited
    line.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);  // the server prints nothing else on stdout
  const std::string prefix = "listening on http://";
  if (line.rfind(prefix, 0) == 0) {
    auto colon = line.rfind(':');
    port_ = std::atoi(line.c_str() + colon + 1);
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    wait_with_guard(pid_);
  }
}

std::string ServerProcess::log() const {
  return slurp(dir_.file("log"));
}

PtySession::PtySession(const std::vector<std::string>& args, const EnvChanges& env) {
  std::vector<std::string> envv = child_environment(home_.path(), env);
  pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) exec_child(args, std::move(envv));
}

PtySession::~PtySession() {
  if (status_ == -2 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (master_ >= 0) ::close(master_);
}

void PtySession::send(const std::string& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(master_, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

std::optional<std::string> PtySession::expect(const std::string& text) {
  const auto deadline = Clock::now() + kReadGuard;
  for (;;) {
    if (auto pos = pending_.find(text); pos != std::string::npos) {
      std::string got = pending_.substr(0, pos + text.size());
      pending_.erase(0, pos + text.size());
      return got;
    }
    if (Clock::now() > deadline) return std::nullopt;
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[1024];
    ssize_t n = ::read(master_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // EIO: the session ended
    pending_.append(buf, static_cast<std::size_t>(n));
    all_.append(buf, static_cast<std::size_t>(n));
  }
}

int PtySession::wait() {
  if (status_ != -2) return status_;
  // Drain the terminal so the child never blocks on a full buffer.
  const auto deadline = Clock::now() + kProcessGuard;
  int st = 0;
  for (;;) {
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) break;
    if (Clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
      break;
    }
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      char buf[1024];
      ssize_t n = ::read(master_, buf, sizeof buf);
      if (n > 0) all_.append(buf, static_cast<std::size_t>(n));
    }
  }
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return status_;
}

}  // namespace a3s::power::client_cli

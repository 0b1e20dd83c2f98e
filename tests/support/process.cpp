#include "support/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace a3s::power::testing {
namespace {

using Clock = std::chrono::steady_clock;
// Hang guards only (a broken build must not block the suite forever); never a speed requirement.
constexpr auto kProcessGuard = std::chrono::seconds(300);
constexpr auto kReadGuard = std::chrono::seconds(120);

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

int decode_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : -1; }

}  // namespace

std::string bin_dir() {
  const char* e = std::getenv("A3S_BIN_DIR");
  return e != nullptr && *e != '\0' ? std::string(e) : std::string(A3S_BIN_DIR);
}

std::string bin_path(const std::string& name) { return bin_dir() + "/" + name; }

std::vector<std::string> child_environment(const EnvChanges& env) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
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

pid_t spawn_process(const std::string& exe, const std::vector<std::string>& args,
                    const std::vector<std::string>& env, const ChildStdio& stdio) {
  std::vector<std::string> argv_s = {exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s = env;
  auto argv = c_strings(argv_s);
  auto envp = c_strings(env_s);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!stdio.in.empty()) posix_spawn_file_actions_addopen(&fa, 0, stdio.in.c_str(), O_RDONLY, 0);
  if (stdio.out_fd >= 0) {
    posix_spawn_file_actions_adddup2(&fa, stdio.out_fd, 1);
  } else if (!stdio.out.empty()) {
    posix_spawn_file_actions_addopen(&fa, 1, stdio.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  if (stdio.err_to_out) {
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  } else if (!stdio.err.empty()) {
    posix_spawn_file_actions_addopen(&fa, 2, stdio.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT || rc == EACCES || rc == ENOEXEC) {
    // Like a shell: a command that cannot be run is exit status 127.
    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) ::_exit(127);
    return child;
  }
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + exe);
  return pid;
}

void exec_process(const std::string& exe, const std::vector<std::string>& args, std::vector<std::string> env) {
  std::vector<std::string> argv_s = {exe};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  auto a = c_strings(argv_s);
  auto e = c_strings(env);
  ::execve(a[0], a.data(), e.data());
  ::_exit(127);
}

int wait_for_exit(pid_t pid, std::chrono::milliseconds timeout, bool* timed_out) {
  if (timed_out != nullptr) *timed_out = false;
  const auto deadline = Clock::now() + timeout;
  int st = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) return decode_status(st);
    if (r < 0 && errno != EINTR) return -1;
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      if (timed_out != nullptr) *timed_out = true;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string read_text_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

ProcessResult run_process(const std::string& exe, const std::vector<std::string>& args, const RunOptions& options) {
  TempDir dir("a3s-run");
  EnvChanges changes;
  if (options.private_home) {
    const std::string home = dir.file("home");
    std::filesystem::create_directory(home);
    changes["A3S_POWER_HOME"] = home;
  }
  for (const auto& [k, v] : options.env) changes[k] = v;
  ChildStdio stdio;
  stdio.in = dir.write("in", options.input);
  stdio.out = dir.file("out");
  stdio.err = options.drop_stderr ? "/dev/null" : dir.file("err");
  stdio.err_to_out = options.merge_stderr;
  const pid_t pid = spawn_process(exe, args, child_environment(changes), stdio);
  ProcessResult r;
  r.status = wait_for_exit(pid, options.timeout, &r.timed_out);
  r.out = read_text_file(dir.file("out"));
  if (!options.merge_stderr && !options.drop_stderr) r.err = read_text_file(dir.file("err"));
  return r;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

ProcessResult run_shell(const std::string& command, bool with_stderr) {
  RunOptions o;
  o.merge_stderr = with_stderr;
  o.drop_stderr = !with_stderr;
  return run_process("/bin/sh", {"-c", command}, o);
}

void expect_one_line_error(const ProcessResult& r, int status) {
  EXPECT_EQ(r.status, status) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be one line: " << r.err;
}

PtySession::PtySession(const std::string& exe, const std::vector<std::string>& args, const EnvChanges& env) {
  EnvChanges changes = {{"A3S_POWER_HOME", home_.path()}};
  for (const auto& [k, v] : env) changes[k] = v;
  std::vector<std::string> envv = child_environment(changes);
  pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) exec_process(exe, args, std::move(envv));
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
  status_ = decode_status(st);
  return status_;
}

}  // namespace a3s::power::testing

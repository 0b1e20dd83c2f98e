// Runs the real a3s-power binary as a subprocess with a controlled environment.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace a3s::power::enc_test {

inline const std::string kBin = std::string(A3S_BIN_DIR) + "/a3s-power";

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliRun {
  int status = -1;
  std::string out, err;
};

// A fresh directory under `parent` (default: the system temp dir), removed at scope exit.
class Dir {
 public:
  explicit Dir(const std::string& parent = std::filesystem::temp_directory_path().string()) {
    std::string tmpl = parent + "/a3s-enc-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs a3s-power with `args`. A3S_MODEL_KEY, A3S_POWER_HOME and A3S_POWER_TEE_MODE are removed from
// the environment unless `env` sets them; A3S_POWER_HOME points at an empty private directory by
// default so no user config is read.
inline CliRun run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  Dir io;
  Dir home;
  std::string cmd = "env -u A3S_MODEL_KEY -u A3S_POWER_TEE_MODE A3S_POWER_HOME=" + quote(home.path());
  for (const auto& [k, v] : env) cmd += " " + k + "=" + quote(v);
  cmd += " " + quote(kBin);
  for (const auto& a : args) cmd.append(" ").append(quote(a));
  cmd.append(" >")
      .append(quote(io.file("out")))
      .append(" 2>")
      .append(quote(io.file("err")))
      .append(" </dev/null");
  const int rc = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(io.file("out"));
  r.err = slurp(io.file("err"));
  return r;
}

// True when the binary has subcommand `name` (`run` and `serve` need the server layer).
// True when the binary has subcommand `name` (a build without the server layer lacks `run` and
// `serve`): its own help names it in the usage line, the top-level help would not.
inline bool has_command(const std::string& name) {
  const CliRun r = run({name, "--help"});
  return r.status == 0 && r.out.find("a3s-power " + name) != std::string::npos;
}

}  // namespace a3s::power::enc_test

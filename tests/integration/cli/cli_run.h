// Runs the real `a3s-power` binary as a user would and captures its stdout, stderr and exit status.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/gguf_patch.h"

namespace a3s::power {

inline const std::string kBin = std::string(A3S_BIN_DIR) + "/a3s-power";
// The smallest reference model (tests/../shared/testdata/models).
inline const std::string kStories = testing::model_path("stories260K");

struct CliRun {
  int status = -1;
  std::string out, err;
};

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

inline CliRun run(const std::vector<std::string>& args) {
  testing::TempDir dir;
  std::string cmd = quote(kBin);
  for (const auto& a : args) cmd.append(" ").append(quote(a));
  cmd.append(" >").append(quote(dir.file("out"))).append(" 2>").append(quote(dir.file("err")));
  cmd.append(" </dev/null");
  const int rc = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(dir.file("out"));
  r.err = slurp(dir.file("err"));
  return r;
}

inline void expect_one_line_error(const CliRun& r, int status) {
  EXPECT_EQ(r.status, status) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be one line: " << r.err;
}

}  // namespace a3s::power

#include "verify_cli_run.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace a3s::power::verify_cli {
namespace {

const std::string kBin = std::string(A3S_BIN_DIR) + "/a3s-power-verify";

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

ScratchDir::ScratchDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "a3s-verify-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& name, const std::vector<uint8_t>& bytes) const {
  const std::string p = path_ + "/" + name;
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return p;
}

CliResult run_verify(const std::vector<std::string>& args) {
  ScratchDir dir;
  std::string cmd = quote(kBin);
  for (const auto& a : args) cmd.append(" ").append(quote(a));
  cmd.append(" >").append(quote(dir.path() + "/out")).append(" 2>").append(quote(dir.path() + "/err"));
  cmd.append(" </dev/null");
  const int rc = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(dir.path() + "/out");
  r.err = slurp(dir.path() + "/err");
  return r;
}

std::string attestation(const std::string& rel) {
  return std::string(A3S_TESTDATA_DIR) + "/attestation/" + rel;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  const std::string s = slurp(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

nlohmann::json parse_json_output(const CliResult& r) {
  EXPECT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line of JSON expected: " << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);  // throws (test fails) on anything but one value
  EXPECT_TRUE(j.is_object());
  return j;
}

void expect_one_line_error(const CliResult& r, int status) {
  EXPECT_EQ(r.status, status) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be one line: " << r.err;
}

}  // namespace a3s::power::verify_cli

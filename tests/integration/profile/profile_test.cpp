// The build profile of the executables (README "Build profiles"), run as processes:
// - `--version` of a3s-power and a3s-power-verify: the version, the profile this build was configured
//   as and the git commit of the sources (12 hex digits, "-dirty" when tracked files differed, or
//   "unknown" outside a git checkout);
// - what a profile leaves out answers not_built (exit 2, one line naming the command and the profile):
//   without libcurl pull, chat, ps, bench-cache, the verifier's --url and --online, and the server's
//   POST /v1/models/pull (501); without the server, serve. With them, the same commands get past that
//   point (their own errors);
// - a server profile serves, with RA-TLS on.
// A3S_TEST_PROFILE and the A3S_* option values come from the CMake configuration of this build.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/fake_http_server.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace a3s::power::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool sources_are_a_git_checkout() {
  return run_shell("test -e " + shell_quote(std::string(A3S_SOURCE_DIR) + "/.git") + " && git -C " +
                       shell_quote(A3S_SOURCE_DIR) + " rev-parse --verify -q HEAD",
                   /*with_stderr=*/false)
             .status == 0;
}

// `commit` names a commit of the sources' history: HEAD, or an ancestor when HEAD moved on after the
// build (a commit made without building again).
bool in_source_history(const std::string& commit) {
  return run_shell("git -C " + shell_quote(A3S_SOURCE_DIR) + " merge-base --is-ancestor " + shell_quote(commit) +
                       " HEAD",
                   /*with_stderr=*/false)
             .status == 0;
}

void expect_version(const std::string& program) {
  const ProcessResult r = run_process(bin_path(program), {"--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0], program + " " + A3S_TEST_VERSION);
  EXPECT_EQ(lines[1], std::string("profile: ") + A3S_TEST_PROFILE);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[2], m, std::regex("commit: (([0-9a-f]{12})(-dirty)?|unknown)"))) << lines[2];
  // The commit is one of the sources' history (HEAD, unless a commit was made after the build).
  if (sources_are_a_git_checkout()) {
    ASSERT_NE(m[1].str(), "unknown");
    EXPECT_TRUE(in_source_history(m[2].str())) << lines[2];
  } else {
    EXPECT_EQ(m[1].str(), "unknown");
  }
}

// The run failed as a command the profile leaves out: exit 2, one line naming `what` and the profile.
void expect_not_built(const ProcessResult& r, const std::string& what, const std::string& reason) {
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "error: " + what + " is not built into this profile (" + A3S_TEST_PROFILE + ": " + reason + ")\n");
}

// The run did not fail for the profile (the command ran and failed, or not, for its own reasons).
void expect_built(const ProcessResult& r) {
  EXPECT_THAT(r.err, Not(HasSubstr("not built"))) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("not built"))) << r.out;
}

std::string unused_url() {
  return "http://127.0.0.1:" + std::to_string(unused_port());
}

const std::string kHash = "sha256:" + std::string(64, 'a');

TEST(Profile, VerifierVersionNamesProfileAndCommit) {
  expect_version("a3s-power-verify");
}

TEST(Profile, VerifierLiveAndOnlineModesNeedLibcurl) {
  const ProcessResult live =
      run_process(bin_path("a3s-power-verify"), {"--url", unused_url(), "--model", "m", "--expected-hash", kHash});
  TempDir dir;
  const std::string evidence = dir.write("report.bin", std::string(1184, '\0'));
  const ProcessResult online = run_process(
      bin_path("a3s-power-verify"),
      {"report", "--file", evidence, "--online", "--kds-url", unused_url(), "--pcs-url", unused_url(),
       "--cache-dir", dir.file("cache")});
  if (A3S_WITH_CURL) {
    expect_built(live);
    EXPECT_EQ(live.status, 2) << live.err;  // nothing listens there: an HTTP error, exit 2
    expect_built(online);
  } else {
    expect_not_built(live, "a3s-power-verify live verification (--url)", "built without libcurl");
    expect_not_built(online, "a3s-power-verify --online", "built without libcurl");
  }
  // Offline verification is in every profile: the zero report is read and rejected, not refused.
  const ProcessResult offline = run_process(bin_path("a3s-power-verify"), {"report", "--file", evidence});
  expect_built(offline);
}

#if A3S_BUILD_ENGINE

TEST(Profile, PowerVersionNamesProfileAndCommit) {
  expect_version("a3s-power");
}

TEST(Profile, ClientCommandsNeedLibcurl) {
  RunOptions o;
  o.private_home = true;
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"pull", {"pull", "/nonexistent/model.gguf"}},
      {"chat", {"chat", "m", "hello", "--url", unused_url()}},
      {"ps", {"ps", "--url", unused_url()}},
      {"bench-cache", {"bench-cache", "--url", unused_url()}},
  };
  for (const auto& [name, args] : commands) {
    SCOPED_TRACE(name);
    const ProcessResult r = run_process(bin_path("a3s-power"), args, o);
    if (A3S_WITH_CURL) {
      expect_built(r);
      EXPECT_EQ(r.status, 2) << r.err;  // no such file / no server: exit 2 with the command's own error
    } else {
      expect_not_built(r, "a3s-power " + name, "built without libcurl");
    }
  }
  // --help still describes a command that is not built, and says so.
  const ProcessResult help = run_process(bin_path("a3s-power"), {"--help"});
  EXPECT_EQ(help.status, 0);
  const std::string pull =
      "Pull a model into the store (path, https:// URL, hf://org/repo/file.gguf; optional @sha256:<hex>)";
  EXPECT_THAT(help.out, HasSubstr(A3S_WITH_CURL ? pull + "\n" : pull + " [not built into this profile]\n"));
}

TEST(Profile, ServeNeedsTheServer) {
  if (A3S_BUILD_SERVER) {
    const ProcessResult help = run_process(bin_path("a3s-power"), {"serve", "--help"});
    EXPECT_EQ(help.status, 0) << help.err;
    EXPECT_THAT(help.out, HasSubstr("--config"));
  } else {
    const ProcessResult r = run_process(bin_path("a3s-power"), {"serve", "--port", "0"});
    expect_not_built(r, "a3s-power serve", "built without the server");
  }
}

#endif  // A3S_BUILD_ENGINE

#if A3S_BUILD_SERVER

// One HTTP/1.1 exchange on 127.0.0.1:port (Connection: close); the whole answer.
std::string http_exchange(int port, const std::string& method, const std::string& path, const std::string& body) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                                "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                "\r\n\r\n" + body;
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

TEST(Profile, ServerServesWithRatlsAndPullNeedsLibcurl) {
  TempDir dir;
  const std::string config = dir.write("power.hcl", "tee_mode = true\ntee_policy = \"development\"\n"
                                                    "tee_device_root = \"" + dir.path() + "\"\n"
                                                    "ratls = true\ntls_port = 0\n");
  ServerProcess server({"--config", config, "--model", stories_model()});
  ASSERT_TRUE(server.ready()) << server.log();
  EXPECT_GT(server.tls_port(), 0) << server.log();  // the RA-TLS listener

  const std::string health = http_exchange(server.port(), "GET", "/health", "");
  EXPECT_THAT(health, HasSubstr("HTTP/1.1 200")) << health;

  const std::string pull =
      http_exchange(server.port(), "POST", "/v1/models/pull", R"({"model":"/etc/hostname"})");
  if (A3S_WITH_CURL) {
    EXPECT_THAT(pull, HasSubstr("HTTP/1.1 400")) << pull;  // local paths are refused over HTTP
    EXPECT_THAT(pull, HasSubstr("local_path_refused")) << pull;
  } else {
    EXPECT_THAT(pull, HasSubstr("HTTP/1.1 501")) << pull;
    EXPECT_THAT(pull, HasSubstr(R"("code":"not_built")")) << pull;
    EXPECT_THAT(pull, HasSubstr(std::string("POST /v1/models/pull is not built into this profile (") +
                                A3S_TEST_PROFILE + ": built without libcurl)"))
        << pull;
  }
  EXPECT_EQ(server.stop(), 0) << server.log();
}

#endif  // A3S_BUILD_SERVER

}  // namespace
}  // namespace a3s::power::testing

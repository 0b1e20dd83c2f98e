// vsock end to end (docs/ra-tls.md "vsock") with the real binaries, on a kernel without vsock loopback:
// every process runs under tests/support/vsock_shim.cpp (LD_PRELOAD), which turns AF_VSOCK stream
// sockets into Unix sockets of a test directory, so `a3s-power serve` binds its vsock_port with its own
// code, and `a3s-power-verify --url vsock://1:PORT --ratls` and `a3s-power chat --url vsock://1:PORT
// --ratls-pin …` connect with theirs (through the client's local bridge). The server runs in TEE mode
// (development policy, simulated evidence) with RA-TLS on its TLS port and on vsock.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/hex.h"
#include "crypto/sha256.h"
#include "support/process.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;

constexpr const char* kApiKey = "sk-vsock-e2e";

std::string stories_sha256() {
  std::ifstream in(stories_model(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return "sha256:" + to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
}

class VsockE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string cfg = dir_->write("power.hcl", "tee_mode = true\ntee_policy = \"development\"\n"
                                                     "tee_device_root = \"" + dir_->path() + "\"\n"
                                                     "ratls = true\ntls_port = 0\nvsock_port = 0\n"
                                                     "api_keys = [\"" + std::string(kApiKey) + "\"]\n");
    ::mkdir((dir_->path() + "/vsock").c_str(), 0700);
    server_ = new ServerProcess({"--config", cfg, "--model", stories_model()}, shimmed());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->ready()) << server_->log();
    ASSERT_GT(server_->vsock_port(), 0) << server_->log();
    ASSERT_GT(server_->tls_port(), 0) << server_->log();
  }

  // The environment of a process whose AF_VSOCK sockets are the test directory's Unix sockets.
  static EnvChanges shimmed() {
    return {{"LD_PRELOAD", A3S_VSOCK_SHIM},
            {"A3S_TEST_VSOCK_DIR", dir_->path() + "/vsock"},
            {"ASAN_OPTIONS", "verify_asan_link_order=0"},
            {"A3S_POWER_API_KEY", kApiKey}};
  }
  static std::string vsock_url() { return "vsock://1:" + std::to_string(server_->vsock_port()); }
  static ProcessResult run(const std::string& exe, const std::vector<std::string>& args) {
    RunOptions o;
    o.env = shimmed();
    o.private_home = true;
    return run_process(bin_path(exe), args, o);
  }
  static ProcessResult verify(const std::string& url, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--ratls", "--url", url, "--model", "stories260K", "--expected-hash",
                                     stories_sha256(), "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run("a3s-power-verify", args);
  }

  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(VsockE2E, TheServerAnnouncesItsVsockListenerBeforeThePlainOne) {
  // The listener is the stand-in's socket file for the printed port.
  EXPECT_TRUE(std::filesystem::exists(dir_->path() + "/vsock/" + std::to_string(server_->vsock_port())));
}

// verify over vsock → the same key as the TCP RA-TLS port (one identity) → chat and ps over vsock
// pinned to it, answering as over TCP; a wrong pin gets nothing.
TEST_F(VsockE2E, VerifyThenChatOverVsockPinnedToTheVerifiedKey) {
  const ProcessResult over_vsock = verify(vsock_url(), {"--allow-simulated"});
  ASSERT_EQ(over_vsock.status, 0) << over_vsock.out << over_vsock.err << server_->log();
  const json accepted = json::parse(over_vsock.out);
  EXPECT_EQ(accepted["accepted"], true);
  EXPECT_EQ(accepted["checks"][0]["name"], "ratls_certificate");
  const std::string pin = accepted["ratls_pin"]["sha256"];
  const ProcessResult over_tcp = verify("https://127.0.0.1:" + std::to_string(server_->tls_port()), {"--allow-simulated"});
  ASSERT_EQ(over_tcp.status, 0) << over_tcp.out << over_tcp.err;
  EXPECT_EQ(json::parse(over_tcp.out)["ratls_pin"]["sha256"], pin) << "one RA-TLS identity for both listeners";

  const std::vector<std::string> chat = {"chat", "stories260K", "Once upon a time", "--temperature", "0", "-n", "8",
                                         "--ratls-pin", pin, "--url"};
  auto with = [](std::vector<std::string> args, const std::string& url) {
    args.push_back(url);
    return args;
  };
  const ProcessResult vsock_chat = run("a3s-power", with(chat, vsock_url()));
  ASSERT_EQ(vsock_chat.status, 0) << vsock_chat.err << server_->log();
  EXPECT_FALSE(vsock_chat.out.empty());
  const ProcessResult tcp_chat = run("a3s-power", with(chat, "https://127.0.0.1:" + std::to_string(server_->tls_port())));
  ASSERT_EQ(tcp_chat.status, 0) << tcp_chat.err;
  EXPECT_EQ(vsock_chat.out, tcp_chat.out) << "greedy decoding answers the same over both transports";

  const ProcessResult ps = run("a3s-power", {"ps", "--url", vsock_url(), "--ratls-pin", pin});
  EXPECT_EQ(ps.status, 0) << ps.err;
  EXPECT_NE(ps.out.find("stories260K"), std::string::npos) << ps.out;

  const ProcessResult wrong =
      run("a3s-power", with({"chat", "stories260K", "hi", "--ratls-pin", "sha256:" + std::string(64, '0'), "--url"},
                            vsock_url()));
  EXPECT_EQ(wrong.status, 2) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("not the pinned RA-TLS key"), std::string::npos) << wrong.err;
}

TEST_F(VsockE2E, SimulatedEvidenceOverVsockIsRejectedWithoutAllowSimulatedAndOffCidOne) {
  const ProcessResult strict = verify(vsock_url());
  EXPECT_EQ(strict.status, 3) << strict.out << strict.err;
  EXPECT_EQ(json::parse(strict.out)["failed_step"], "simulated_evidence") << strict.out;
  // CID 3 is another VM (reached through the host): simulated evidence proves nothing there.
  const ProcessResult remote = verify("vsock://3:" + std::to_string(server_->vsock_port()), {"--allow-simulated"});
  EXPECT_EQ(remote.status, 2) << remote.out << remote.err;
  EXPECT_NE(remote.err.find("--allow-simulated is only accepted for a loopback URL"), std::string::npos) << remote.err;
}

TEST_F(VsockE2E, PlainHttpOverVsockIsRefusedByTheClientOffCidOneAndByTheRatlsListener) {
  // To another CID, plain HTTP would pass through the host: the client refuses before connecting.
  const ProcessResult remote = run("a3s-power", {"ps", "--url", "vsock://3:" + std::to_string(server_->vsock_port())});
  EXPECT_EQ(remote.status, 2) << remote.err;
  EXPECT_NE(remote.err.find("passes through the host"), std::string::npos) << remote.err;
  // To CID 1 it is allowed, but this listener speaks RA-TLS only: no answer.
  const ProcessResult local = run("a3s-power", {"ps", "--url", vsock_url()});
  EXPECT_NE(local.status, 0) << local.out;
  // Nothing listens on another port.
  const ProcessResult none = run("a3s-power", {"ps", "--url", "vsock://1:7", "--ratls-pin", "sha256:" + std::string(64, '0')});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_NE(none.err.find("vsock://1:7"), std::string::npos) << none.err;
}

TEST(VsockE2EConfig, StrictModeRefusesPlainHttpOverVsock) {
  TempDir dir;
  const std::string cfg = dir.write("power.hcl", "tee_mode = true\ntee_policy = \"strict\"\n"
                                                 "tee_device_root = \"" + dir.path() + "\"\nvsock_port = 5000\n"
                                                 "api_keys = [\"" + std::string(kApiKey) + "\"]\n");
  const ProcessResult r = run_shell(bin_dir() + "/a3s-power serve --port 0 --config " + cfg + " --model " + stories_model());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("refusing to listen on vsock (vsock_port) in strict TEE mode without RA-TLS"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("listening on"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace a3s::power::testing

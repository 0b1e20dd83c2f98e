// TEE mode end to end with the real server binary in development policy (simulated evidence):
// GET /v1/attestation binds the client's nonce and the claims about the pinned model into the
// evidence; bad requests are refused; /health and /metrics report the TEE state; strict policy on a
// machine without attestation hardware refuses to start.
#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/http_client.h"
#include "support/server_process.h"
#include "support/process.h"
#include "base/hex.h"
#include "crypto/base64.h"
#include "crypto/sha256.h"
#include "base/canonical_json.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;

std::string file_sha256_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
}

std::string fresh_nonce() {
  std::array<uint8_t, 32> n{};
  EXPECT_EQ(RAND_bytes(n.data(), static_cast<int>(n.size())), 1);
  return to_hex(n);
}

std::string tee_config(const TempDir& dir, const std::string& extra = {}) {
  return dir.write("power.hcl", "tee_mode = true\ntee_policy = \"development\"\n"
                                "tee_device_root = \"" + dir.path() + "\"\n"
                                "model_hashes = { \"stories260K\" = \"sha256:" +
                                    file_sha256_hex(stories_model()) + "\" }\n" + extra);
}

class TeeE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    server_ = new ServerProcess({"--config", tee_config(*dir_), "--model", stories_model()});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << server_->log(); }

  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(TeeE2E, AttestationBindsTheNonceAndTheModelDigest) {
  const std::string nonce = fresh_nonce();
  HttpResult r = http("GET", server_->url("/v1/attestation?nonce=" + nonce + "&model=stories260K"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["cache-control"], "no-store");
  const json j = json::parse(r.body);
  const json& claims = j["claims"];
  EXPECT_EQ(claims["nonce"], nonce);
  EXPECT_EQ(claims["model"]["name"], "stories260K");
  EXPECT_EQ(claims["model"]["sha256"], file_sha256_hex(stories_model()));
  EXPECT_EQ(claims["runtime"]["tee_policy"], "development");

  // report_data = nonce || SHA-256(canonical claims), computed here from what was received.
  const std::string canonical = canonical_json(claims);
  const std::string digest =
      to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(canonical.data()), canonical.size()}));
  EXPECT_EQ(j["claims_sha256"], digest);
  EXPECT_EQ(j["report_data"], nonce + digest);
  const auto raw = crypto::base64_decode(j["report"].get<std::string>());
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(to_hex(verify::sev_snp::parse_report(*raw).report_data), nonce + digest);
  EXPECT_EQ(j["tee_type"], "simulated");
  EXPECT_FALSE(j["verifiable"].get<bool>());

  // The model may be left out when one model is served; a new nonce gives new evidence.
  const std::string other = fresh_nonce();
  HttpResult again = http("GET", server_->url("/v1/attestation?nonce=" + other));
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(json::parse(again.body)["claims"]["nonce"], other);
  EXPECT_NE(json::parse(again.body)["report"], j["report"]);
}

TEST_F(TeeE2E, MissingOrMalformedNoncesAndUnknownModelsAreRefused) {
  const std::string nonce = fresh_nonce();
  const std::vector<std::string> queries = {"model=stories260K", "nonce=&model=stories260K",
                                   "nonce=" + nonce.substr(1), "nonce=" + nonce + "00",
                                   "nonce=" + std::string(63, 'a') + "g", "nonce=0x" + nonce.substr(2),
                                   "nonce=" + nonce + "&nonce=" + nonce, "nonce=" + nonce + "&extra=1",
                                   "nonce=%zz"};
  for (const std::string& query : queries) {
    HttpResult r = http("GET", server_->url("/v1/attestation?" + query));
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
    EXPECT_EQ(r.body.find("CANARY"), std::string::npos);
  }
  HttpResult unknown = http("GET", server_->url("/v1/attestation?nonce=" + nonce + "&model=CANARY-model"));
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(unknown.body.find("CANARY"), std::string::npos) << "the model name is not echoed";
  EXPECT_EQ(http("POST", server_->url("/v1/attestation?nonce=" + nonce)).status, 405);
}

TEST_F(TeeE2E, CoreDumpsAreDisabled) {
  std::ifstream limits("/proc/" + std::to_string(server_->pid()) + "/limits");
  std::string line, core;
  while (std::getline(limits, line)) {
    if (line.starts_with("Max core file size")) core = line;
  }
  ASSERT_FALSE(core.empty());
  std::istringstream fields(core.substr(std::string("Max core file size").size()));
  std::string soft, hard;
  fields >> soft >> hard;
  EXPECT_EQ(soft, "0") << core;
  EXPECT_EQ(hard, "0") << core;
}

TEST_F(TeeE2E, HealthAndMetricsReportTheTee) {
  ASSERT_EQ(http("GET", server_->url("/v1/attestation?nonce=" + fresh_nonce())).status, 200);
  ASSERT_EQ(http("GET", server_->url("/v1/attestation?nonce=bad")).status, 400);
  const json h = json::parse(http("GET", server_->url("/health")).body);
  EXPECT_EQ(h["tee"]["enabled"], true);
  EXPECT_EQ(h["tee"]["type"], "simulated");
  EXPECT_EQ(h["tee"]["policy"], "development");
  EXPECT_EQ(h["tee"]["verifiable"], false);
  EXPECT_EQ(h["tee"]["models_verified"], 1);
  const std::string m = http("GET", server_->url("/metrics")).body;
  EXPECT_NE(m.find("a3s_power_attestations_total{result=\"ok\"} "), std::string::npos) << m;
  EXPECT_EQ(m.find("a3s_power_attestations_total{result=\"ok\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("a3s_power_integrity_failures_total 0"), std::string::npos) << m;
}

// The client verifier against the real server (simulated evidence): accepted only with
// --allow-simulated, and a wrong model digest is named.
TEST_F(TeeE2E, VerifierAcceptsSimulatedEvidenceOnlyWhenAllowed) {
  const std::string base = bin_dir() + "/a3s-power-verify --url http://127.0.0.1:" + std::to_string(server_->port()) +
                           " --model stories260K --format json --expected-hash sha256:";
  const std::string digest = file_sha256_hex(stories_model());
  ProcessResult ok = run_shell(base + digest + " --allow-simulated", false);
  EXPECT_EQ(ok.status, 0) << ok.out;
  const json accepted = json::parse(ok.out);
  EXPECT_EQ(accepted["accepted"], true);
  EXPECT_EQ(accepted["simulated"], true);
  EXPECT_EQ(accepted["model_sha256"], digest);

  ProcessResult strict = run_shell(base + digest, false);
  EXPECT_EQ(strict.status, 3) << strict.out;
  EXPECT_EQ(json::parse(strict.out)["failed_step"], "simulated_evidence") << strict.out;

  std::string wrong = digest;
  wrong[0] = wrong[0] == '0' ? '1' : '0';
  ProcessResult mismatch = run_shell(base + wrong + " --allow-simulated", false);
  EXPECT_EQ(mismatch.status, 3) << mismatch.out;
  EXPECT_EQ(json::parse(mismatch.out)["failed_step"], "model_hash_mismatch") << mismatch.out;
}

TEST(TeeE2EConfig, AttestationWithoutTeeModeIs503) {
  ServerProcess s({"--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  HttpResult r = http("GET", s.url("/v1/attestation?nonce=" + fresh_nonce()));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "tee_not_enabled");
  EXPECT_EQ(json::parse(http("GET", s.url("/health")).body)["tee"]["enabled"], false);
}

TEST(TeeE2EConfig, AttestationNeedsAnApiKeyWhenKeysAreSet) {
  TempDir dir;
  ServerProcess s({"--config", tee_config(dir, "api_keys = [\"sk-tee-key\"]\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  const std::string path = "/v1/attestation?nonce=" + fresh_nonce();
  EXPECT_EQ(http("GET", s.url(path)).status, 401);
  HttpOptions key;
  key.headers = {"Authorization: Bearer sk-tee-key"};
  EXPECT_EQ(http("GET", s.url(path), "", key).status, 200);
}

TEST(TeeE2EConfig, StrictPolicyWithoutHardwareDoesNotStart) {
  TempDir dir;
  const std::string cfg = dir.write("power.hcl", "tee_mode = true\ntee_policy = \"strict\"\ntee_device_root = \"" +
                                                     dir.path() + "\"\n");
  const ProcessResult r = run_shell(bin_dir() + "/a3s-power serve --port 0 --config " + cfg + " --model " + stories_model());
  const std::string& out = r.out;
  EXPECT_EQ(r.status, 2) << out;
  EXPECT_NE(out.find("no TEE evidence provider"), std::string::npos) << out;
  EXPECT_EQ(out.find("listening on"), std::string::npos) << out;
}

// Memory locking (mlockall) in TEE mode. The tests run as root, where mlockall always succeeds, so the
// failure runs the server without CAP_IPC_LOCK (setpriv) under a 64 KiB RLIMIT_MEMLOCK (prlimit).
const std::vector<std::string> kNoMemlock = {"/usr/bin/setpriv", "--bounding-set", "-ipc_lock", "--inh-caps",
                                             "-ipc_lock", "/usr/bin/prlimit", "--memlock=65536"};

TEST_F(TeeE2E, MemoryIsLocked) {
  std::ifstream status("/proc/" + std::to_string(server_->pid()) + "/status");
  std::string line, locked;
  while (std::getline(status, line)) {
    if (line.starts_with("VmLck:")) locked = line;
  }
  ASSERT_FALSE(locked.empty());
  EXPECT_NE(locked, "VmLck:\t       0 kB") << "resident pages are locked: " << locked;
  EXPECT_EQ(server_->log().find("memory is not locked"), std::string::npos) << server_->log();
}

// Whether this environment lets a test drop CAP_IPC_LOCK (setpriv needs CAP_SETPCAP).
bool can_drop_memlock() {
  std::string command;
  for (const std::string& w : kNoMemlock) command += shell_quote(w) + " ";
  return run_shell(command + "/bin/true").status == 0;
}

TEST(TeeE2EConfig, UnlockableMemoryIsAWarningInDevelopment) {
  if (!can_drop_memlock()) GTEST_SKIP() << "setpriv cannot drop CAP_IPC_LOCK here";
  TempDir dir;
  ServerProcess s({"--config", tee_config(dir), "--model", stories_model()}, {}, kNoMemlock);
  ASSERT_TRUE(s.ready()) << s.log();
  EXPECT_NE(s.log().find("tee: memory is not locked (mlockall failed"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("RLIMIT_MEMLOCK 65536 bytes"), std::string::npos) << s.log();
  EXPECT_EQ(http("GET", s.url("/health")).status, 200);
}

TEST(TeeE2EConfig, UnlockableMemoryStopsAStrictServer) {
  if (!can_drop_memlock()) GTEST_SKIP() << "setpriv cannot drop CAP_IPC_LOCK here";
  TempDir dir;
  const std::string cfg = dir.write("power.hcl", "tee_mode = true\ntee_policy = \"strict\"\ntee_device_root = \"" +
                                                     dir.path() + "\"\n");
  std::string command;
  for (const std::string& w : kNoMemlock) command += shell_quote(w) + " ";
  const ProcessResult r =
      run_shell(command + bin_dir() + "/a3s-power serve --port 0 --config " + cfg + " --model " + stories_model());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("tee_policy \"strict\" needs the process memory locked"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RLIMIT_MEMLOCK"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("listening on"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace a3s::power::testing

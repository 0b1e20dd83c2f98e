// a3s-power-verify live mode (--url) end to end against a loopback HTTP server in the test that
// serves GET /v1/attestation answers built like the server's (simulated TEE, canonical claims).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit/verify/attestation/attestation_builder.h"
#include "support/fake_http_server.h"
#include "base/hex.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

using testing::http_response;
using testing::ScriptedHttpServer;
using namespace verify_attestation_testing;

const tee::Nonce kNonce = test_nonce(21);
const std::string kNonceHex = to_hex(kNonce);

std::string genuine_body() {
  static tee::SimulatedProvider provider;
  return simulated_response(provider, make_claims(kNonce)).dump();
}

std::string ok(const std::string& body) {
  return http_response(200, "application/json", body);
}

std::vector<std::string> live_args(const ScriptedHttpServer& server, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--url", server.url(),      "--model",
                                   kModel,  "--expected-hash", model_digest_arg()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The request line's target of the server's first request.
std::string first_target(const ScriptedHttpServer& server) {
  const auto reqs = server.requests();
  if (reqs.empty()) return "";
  const std::string& r = reqs.front();
  const size_t a = r.find(' '), b = r.find(' ', a + 1);
  return r.substr(a + 1, b - a - 1);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(VerifyLive, AcceptsSimulatedEvidenceWhenAllowed) {
  ScriptedHttpServer server({ok(genuine_body())});
  const CliResult r = run_verify(live_args(server, {"--nonce", kNonceHex, "--allow-simulated"}));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(first_target(server), "/v1/attestation?nonce=" + kNonceHex + "&model=" + kModel);
  for (const char* check : {"ok   response:", "ok   nonce:", "ok   claims_digest:", "ok   model:",
                            "ok   model_hash:", "ok   report_data:", "ok   evidence:", "ok   measurement:"})
    EXPECT_TRUE(contains(r.out, check)) << check << "\n" << r.out;
  EXPECT_TRUE(contains(r.out, "accepted: simulated")) << r.out;
  EXPECT_TRUE(contains(r.out, "SIMULATED")) << r.out;
  EXPECT_FALSE(contains(r.out, "FAIL")) << r.out;
  EXPECT_FALSE(contains(server.requests().front(), "Authorization")) << server.requests().front();
}

TEST(VerifyLive, AttestSubcommandIsTheSame) {
  ScriptedHttpServer server({ok(genuine_body())});
  std::vector<std::string> args = {"attest"};
  for (const auto& a : live_args(server, {"--nonce", kNonceHex, "--allow-simulated"})) args.push_back(a);
  EXPECT_EQ(run_verify(args).status, 0);
}

TEST(VerifyLive, JsonOutput) {
  ScriptedHttpServer server({ok(genuine_body())});
  const CliResult r =
      run_verify(live_args(server, {"--nonce", kNonceHex, "--allow-simulated", "--format", "json"}));
  EXPECT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_FALSE(j.contains("failed_step"));
  EXPECT_EQ(j["tee_type"], "simulated");
  EXPECT_EQ(j["simulated"], true);
  EXPECT_EQ(j["model"], kModel);
  EXPECT_EQ(j["model_sha256"], to_hex(model_digest()));
  EXPECT_EQ(j["nonce"], kNonceHex);
  EXPECT_EQ(j["measurement"], to_hex(tee::SimulatedProvider::measurement()));
  ASSERT_TRUE(j["checks"].is_array());
  EXPECT_EQ(j["checks"].size(), 13u);
  EXPECT_EQ(j["tee_policy"], "development");  // the signed claim
}

TEST(VerifyLive, SimulatedEvidenceIsRejectedWithoutTheFlag) {
  ScriptedHttpServer server({ok(genuine_body())});
  const CliResult r = run_verify(live_args(server, {"--nonce", kNonceHex, "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_TRUE(contains(r.err, "simulated_evidence")) << r.err;
  const nlohmann::json j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["failed_step"], "simulated_evidence");
}

// Without --nonce the client sends a fresh random nonce, so a canned (replayed) answer is refused.
TEST(VerifyLive, FreshNonceCatchesAReplayedAnswer) {
  ScriptedHttpServer server({ok(genuine_body())});
  const CliResult first = run_verify(live_args(server, {"--allow-simulated"}));
  expect_one_line_error(first, 3);
  EXPECT_TRUE(contains(first.err, "nonce_mismatch")) << first.err;
  EXPECT_TRUE(contains(first.out, "FAIL nonce:")) << first.out;
  EXPECT_EQ(run_verify(live_args(server, {"--allow-simulated"})).status, 3);
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  auto nonce_of = [](const std::string& req) {
    const size_t at = req.find("nonce=");
    return at == std::string::npos ? std::string() : req.substr(at + 6, 64);
  };
  EXPECT_EQ(nonce_of(reqs[0]).find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(nonce_of(reqs[0]).size(), 64u);
  EXPECT_NE(nonce_of(reqs[0]), nonce_of(reqs[1]));
  EXPECT_NE(nonce_of(reqs[0]), kNonceHex);
}

TEST(VerifyLive, WrongExpectedHash) {
  ScriptedHttpServer server({ok(genuine_body())});
  std::vector<std::string> args = {"--url",   server.url(),      "--model",
                                   kModel,    "--expected-hash", "sha256:" + std::string(64, '0'),
                                   "--nonce", kNonceHex,         "--allow-simulated"};
  const CliResult r = run_verify(args);
  expect_one_line_error(r, 3);
  EXPECT_TRUE(contains(r.err, "model_hash_mismatch")) << r.err;
}

TEST(VerifyLive, ExpectedMeasurement) {
  ScriptedHttpServer server({ok(genuine_body())});
  const std::string simulated = to_hex(tee::SimulatedProvider::measurement());
  EXPECT_EQ(run_verify(live_args(server, {"--nonce", kNonceHex, "--allow-simulated", "--expected-measurement",
                                          std::string(96, 'b'), "--expected-measurement", simulated}))
                .status,
            0);
  const CliResult r = run_verify(live_args(
      server, {"--nonce", kNonceHex, "--allow-simulated", "--expected-measurement", std::string(96, 'b')}));
  expect_one_line_error(r, 3);
  EXPECT_TRUE(contains(r.err, "measurement_mismatch")) << r.err;
}

TEST(VerifyLive, ModelNameIsUrlEscaped) {
  ScriptedHttpServer server({ok(genuine_body())});
  const CliResult r = run_verify({"--url", server.url(), "--model", "a b/c&d=é", "--expected-hash",
                                  model_digest_arg(), "--nonce", kNonceHex, "--allow-simulated"});
  EXPECT_EQ(first_target(server), "/v1/attestation?nonce=" + kNonceHex + "&model=a%20b%2Fc%26d%3D%C3%A9");
  expect_one_line_error(r, 3);
  EXPECT_TRUE(contains(r.err, "model_mismatch")) << r.err;
}

TEST(VerifyLive, ApiKeyIsSentAsBearerAndNeverPrinted) {
  const std::string key = "sk-test-SECRET-canary-4242";
  ScriptedHttpServer server({ok(genuine_body())});
  CliResult r = run_verify(live_args(server, {"--nonce", kNonceHex, "--api-key", key}));
  EXPECT_EQ(r.status, 3);  // simulated, not allowed: the key must not appear in the verdict either
  ASSERT_FALSE(server.requests().empty());
  EXPECT_TRUE(contains(server.requests().back(), "Authorization: Bearer " + key)) << server.requests().back();
  EXPECT_FALSE(contains(r.out + r.err, key));

  ::setenv("A3S_POWER_API_KEY", key.c_str(), 1);
  r = run_verify(live_args(server, {"--nonce", kNonceHex, "--allow-simulated"}));
  ::unsetenv("A3S_POWER_API_KEY");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(server.requests().back(), "Authorization: Bearer " + key));
  EXPECT_FALSE(contains(r.out + r.err, key));
}

TEST(VerifyLive, HttpErrorsAreExit2WithStatusAndCode) {
  struct Case {
    int status;
    std::string body, code;
  };
  const std::vector<Case> cases = {
      {401,
       R"({"error":{"message":"invalid API key","type":"authentication_error","code":"invalid_api_key","param":null}})",
       "invalid_api_key"},
      {404,
       R"({"error":{"message":"model 'x' not found","type":"not_found_error","code":"model_not_found","param":null}})",
       "model_not_found"},
      {503, "Service Unavailable", ""},
  };
  for (const auto& c : cases) {
    ScriptedHttpServer server({http_response(c.status, "application/json", c.body)});
    const CliResult r = run_verify(live_args(server, {"--api-key", "sk-hidden-key-777"}));
    expect_one_line_error(r, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, "HTTP " + std::to_string(c.status))) << r.err;
    if (!c.code.empty()) {
      EXPECT_TRUE(contains(r.err, c.code)) << r.err;
    }
    EXPECT_FALSE(contains(r.err, "sk-hidden-key-777")) << r.err;
  }
}

TEST(VerifyLive, UnreachableServerIsExit2) {
  // A port that was just free: nothing listens there.
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::unused_port());
  const CliResult r = run_verify({"--url", url, "--model", kModel, "--expected-hash", model_digest_arg()});
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(VerifyLive, GarbageAnswerIsRejectedNotCrashed) {
  ScriptedHttpServer server({ok("<html>not an attestation</html>")});
  const CliResult r =
      run_verify(live_args(server, {"--nonce", kNonceHex, "--allow-simulated", "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "malformed_response");
}

void expect_usage_error(const std::vector<std::string>& args) {
  const CliResult r = run_verify(args);
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(VerifyLiveUsage, BadFlags) {
  const std::string url = "http://127.0.0.1:9";  // never contacted: the flags are checked first
  const std::string hash = model_digest_arg();
  expect_usage_error({"--url", url, "--expected-hash", hash});       // no --model
  expect_usage_error({"--url", url, "--model", kModel});             // no --expected-hash
  expect_usage_error({"--model", kModel, "--expected-hash", hash});  // no --url
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash.substr(7)});  // no sha256:
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", "sha256:abcd"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--nonce", "00"});
  expect_usage_error(
      {"--url", url, "--model", kModel, "--expected-hash", hash, "--expected-measurement", "ab"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--format", "yaml"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--api-key", ""});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--at", "yesterday"});
  expect_usage_error(
      {"--url", url, "--model", kModel, "--expected-hash", hash, "--vcek", "/nonexistent.pem"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--bogus"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--require-policy", "lenient"});
  expect_usage_error({"--url", "ftp://127.0.0.1/", "--model", kModel, "--expected-hash", hash});
  // Plain http only to loopback: an API key or prompt would cross the network in clear text.
  expect_usage_error({"--url", "http://example.com", "--model", kModel, "--expected-hash", hash});
  expect_usage_error({"--url", url, "report", "--file", "/dev/null"});
  // The TDX policy flags of the live mode.
  const std::string hex96(96, 'a');
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--expected-rtmr", "4=" + hex96});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--expected-rtmr", "0=abcd"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--expected-mrconfigid", "00"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--expected-mrowner", hex96 + "0"});
  expect_usage_error({"--url", url, "--model", kModel, "--expected-hash", hash, "--reject-advisory", "a b"});
  expect_usage_error(
      {"--url", url, "--model", kModel, "--expected-hash", hash, "--no-tcb-check", "--reject-advisory-status"});
  expect_usage_error({"attest", "--url", url, "--model", kModel, "--expected-hash", hash, "--expected-rtmr", "x"});
}

// The TDX policy flags are live-mode flags: given alone they start the live mode (and its checks).
TEST(VerifyLiveUsage, TdxFlagsSelectTheLiveMode) {
  const CliResult r = run_verify({"--expected-rtmr", "0=" + std::string(96, 'a')});
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("--url is required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace a3s::power::verify_cli

// a3s-power-verify live mode with --online: for SEV-SNP hardware evidence the client fetches AMD's CRL
// for the report's product from a KDS (a loopback server here) and checks it against the ARK; the
// answer of the attestation server is built like a hardware server's (tee_type "sev-snp", certificate
// table) under a local ARK passed as --root.
#include <map>

#include "unit/verify/attestation/attestation_builder.h"
#include "support/fake_http_server.h"
#include "base/hex.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

using testing::HttpRoute;
using testing::RoutedHttpServer;
using testing::ScriptedHttpServer;
using namespace verify_attestation_testing;
namespace snp = verify::sev_snp;

const tee::Nonce kLiveOnlineNonce = test_nonce(43);

// A hardware-style answer: evidence signed under a local hierarchy, labelled "sev-snp".
struct LiveHardwareSnp {
  snp::ChipId chip_id{};
  std::unique_ptr<snp::LocalKeyHierarchy> hierarchy;
  ScratchDir files;
  std::string ark, body;

  LiveHardwareSnp() {
    for (size_t i = 0; i < chip_id.size(); ++i) chip_id[i] = static_cast<uint8_t>(0x60 + i);
    snp::LeafSpec leaf;
    leaf.hw_id.assign(chip_id.begin(), chip_id.end());
    hierarchy = std::make_unique<snp::LocalKeyHierarchy>(leaf);
    ark = files.write("ark.pem", hierarchy->ark_pem);
    tee::Claims claims = make_claims(kLiveOnlineNonce);
    claims.tee_policy = TeePolicy::kStrict;  // a hardware server's policy (required by default)
    tee::Evidence ev = evidence_under(*hierarchy, chip_id, claims.report_data());
    ev.tee_type = tee::tee_types::kSevSnp;
    ev.simulated = false;
    ev.verifiable_remotely = true;
    body = response_for(ev, claims).dump();
  }

  std::map<std::string, HttpRoute> kds_routes(const std::vector<uint8_t>& crl) const {
    return {{"/vcek/v1/Milan/crl", {200, "application/pkix-crl", {}, std::string(crl.begin(), crl.end())}}};
  }

  // The local hierarchy's TCB (LeafSpec's default) is below the default table: its own minimum.
  std::vector<std::string> args(const ScriptedHttpServer& server, std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"--url",   server.url(),   "--model",    kModel,
                                  "--expected-hash", model_digest_arg(), "--nonce", to_hex(kLiveOnlineNonce),
                                  "--root",  ark,            "--min-tcb",  "bl=3,tee=0,snp=20,ucode=209",
                                  "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

std::string live_ok(const std::string& body) {
  return testing::http_response(200, "application/json", body);
}

TEST(VerifyLiveOnline, WithoutOnlineTheCrlIsSkipped) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  const CliResult r = run_verify(local.args(server));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(parse_json_output(r)["skipped"], nlohmann::json::array({"crl"}));
}

TEST(VerifyLiveOnline, CrlFetchedFromKdsAndChecked) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  RoutedHttpServer kds(local.kds_routes(local.hierarchy->ark_crl({})));
  ScratchDir cache;
  const CliResult r = run_verify(local.args(server, {"--online", "--kds-url", kds.url(), "--cache-dir", cache.path()}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(parse_json_output(r)["skipped"], nlohmann::json::array());
  EXPECT_EQ(kds.targets(), std::vector<std::string>{"/vcek/v1/Milan/crl"});
}

TEST(VerifyLiveOnline, RevokedVcekIsRejected) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  RoutedHttpServer kds(local.kds_routes(local.hierarchy->ark_crl({local.hierarchy->vcek_der})));
  ScratchDir cache;
  const CliResult r = run_verify(local.args(server, {"--online", "--kds-url", kds.url(), "--cache-dir", cache.path()}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "certificate_revoked");
}

TEST(VerifyLiveOnline, CrlNotSignedByTheArkIsCollateralInvalid) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  RoutedHttpServer kds(local.kds_routes(local.hierarchy->ark_crl({}, 30, /*signer_is_ask=*/true)));
  ScratchDir cache;
  const CliResult r = run_verify(local.args(server, {"--online", "--kds-url", kds.url(), "--cache-dir", cache.path()}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "collateral_invalid");
}

TEST(VerifyLiveOnline, UnreachableKdsIsExit2) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  ScratchDir cache;
  const CliResult r = run_verify(
      local.args(server, {"--online", "--kds-url", "http://127.0.0.1:" + std::to_string(testing::unused_port()),
                          "--cache-dir", cache.path()}));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
}

TEST(VerifyLiveOnline, KdsUrlNeedsOnline) {
  const LiveHardwareSnp local;
  ScriptedHttpServer server({live_ok(local.body)});
  const CliResult r = run_verify(local.args(server, {"--kds-url", "http://127.0.0.1:1"}));
  expect_one_line_error(r, 2);
}

}  // namespace
}  // namespace a3s::power::verify_cli

// The live mode with --online on a TDX server: the answer's quote (re-signed by the test PKI of
// tests/unit/verify/tdx/test_quote_signer.h around the claims' report_data, with Intel's TD QE report)
// is verified strictly with the TDX collateral fetched from a PCS, both played by one loopback server.
#include <cstdio>
#include <map>

#include "unit/verify/attestation/attestation_builder.h"
#include "unit/verify/tdx/test_quote_signer.h"
#include "attestation/tdx/quote.h"
#include "base/hex.h"
#include "crypto/base64.h"
#include "support/fake_http_server.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

using namespace verify_attestation_testing;
using testing::HttpRoute;
using testing::RoutedHttpServer;
using verify::tdx::testing::QeReportFrom;
using verify::tdx::testing::TestQuoteSigner;

const tee::Nonce kTdxNonce = test_nonce(57);

std::string live_tdx_url_encode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// A TDX server's answer and Intel PCS's collateral for it, at the paths of the PCS API.
class VerifyLiveTdxOnline : public ::testing::Test {
 protected:
  void SetUp() override {
    tee::Claims claims = make_claims(kTdxNonce);
    claims.tee_policy = TeePolicy::kStrict;  // a hardware server's policy (required by default)
    const auto sample = verify::tdx::parse_tdx_quote(read_bytes(attestation("tdx/quote.dat")));
    std::vector<uint8_t> body(sample.signed_bytes.begin() + 48, sample.signed_bytes.end());
    const tee::ReportData rd = claims.report_data();
    std::copy(rd.begin(), rd.end(), body.begin() + 520);  // REPORTDATA
    quote_ = signer_.quote(body, QeReportFrom::kRealTdQe);
    const auto parsed = verify::tdx::parse_tdx_quote(quote_);
    rtmr2_ = to_hex(parsed.body.rtmr[2]);
    nlohmann::json j;
    j["tee_type"] = "tdx";
    j["policy"] = to_string(claims.tee_policy);
    j["evidence_format"] = "tdx-quote";
    j["report"] = crypto::base64_encode(quote_);
    j["report_data"] = to_hex(rd);
    j["measurement"] = to_hex(parsed.body.mr_td);
    j["claims"] = claims.to_json();
    j["claims_sha256"] = to_hex(claims.digest());
    j["certificates"] = nullptr;
    j["verifiable"] = true;
    j["config"] = test_config();
    j["generated_at"] = "2025-09-01T00:00:00Z";

    const verify::tdx::TdxCollateral c = signer_.collateral("", "", QeReportFrom::kRealTdQe);
    const auto crls = signer_.crls(false);
    const std::string chain = live_tdx_url_encode(c.tcb_sign_chain_pem);
    std::map<std::string, HttpRoute> routes = {
        {"/v1/attestation?nonce=" + to_hex(kTdxNonce) + "&model=" + kModel,
         {200, "application/json", {}, j.dump()}},
        {"/tdx/certification/v4/tcb?fmspc=ED742AF8ADF5",
         {200, "application/json", {{"TCB-Info-Issuer-Chain", chain}}, c.tcb_info_json}},
        {"/tdx/certification/v4/qe/identity",
         {200, "application/json", {{"SGX-Enclave-Identity-Issuer-Chain", chain}}, c.qe_identity_json}},
        {"/sgx/certification/v4/pckcrl?ca=processor&encoding=der",
         {200, "application/pkix-crl", {{"SGX-PCK-CRL-Issuer-Chain", live_tdx_url_encode(signer_.root_pem())}},
          std::string(crls[1].begin(), crls[1].end())}},
        {"/sgx/certification/v4/rootcacrl",
         {200, "application/pkix-crl", {}, std::string(crls[0].begin(), crls[0].end())}},
    };
    server_ = std::make_unique<RoutedHttpServer>(routes);
    root_ = dir_.write("root.pem", signer_.root_pem());
  }

  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"--url",   server_->url(), "--model", kModel,  "--expected-hash",
                                  model_digest_arg(), "--nonce", to_hex(kTdxNonce), "--root", root_,
                                  "--at",    "2025-09-01",   "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::vector<std::string> online(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"--online", "--pcs-url", server_->url(), "--cache-dir", dir_.path() + "/cache"};
    a.insert(a.end(), extra.begin(), extra.end());
    return args(a);
  }

  TestQuoteSigner signer_;
  ScratchDir dir_;
  std::vector<uint8_t> quote_;
  std::string root_, rtmr2_;
  std::unique_ptr<RoutedHttpServer> server_;
};

TEST_F(VerifyLiveTdxOnline, CollateralFetchedAndTcbChecked) {
  const CliResult r = run_verify(online());
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["tee_type"], "tdx");
  EXPECT_EQ(j["tcb_status"], "UpToDate");
  EXPECT_EQ(j["skipped"], nlohmann::json::array());  // TCB and CRLs checked
  EXPECT_EQ(j["tdx"]["rtmr2"], rtmr2_);
  const auto targets = server_->targets();
  for (const char* path : {"/tdx/certification/v4/tcb?fmspc=ED742AF8ADF5", "/tdx/certification/v4/qe/identity",
                           "/sgx/certification/v4/pckcrl?ca=processor&encoding=der",
                           "/sgx/certification/v4/rootcacrl"})
    EXPECT_NE(std::find(targets.begin(), targets.end(), path), targets.end()) << path;
}

TEST_F(VerifyLiveTdxOnline, WithoutOnlineTheTcbCannotBeChecked) {
  const CliResult r = run_verify(args({}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "collateral_missing");
}

TEST_F(VerifyLiveTdxOnline, TdxPolicyAppliesToTheLiveQuote) {
  CliResult r = run_verify(online({"--expected-rtmr", "2=" + rtmr2_}));
  EXPECT_EQ(r.status, 0) << r.err;
  std::string wrong = rtmr2_;
  wrong[0] = wrong[0] == '0' ? '1' : '0';
  r = run_verify(online({"--expected-rtmr", "2=" + wrong}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "measurement_mismatch");
}

}  // namespace
}  // namespace a3s::power::verify_cli

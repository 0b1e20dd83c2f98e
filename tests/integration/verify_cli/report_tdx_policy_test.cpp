// a3s-power-verify report on TDX quotes: the RTMR / MRCONFIGID / MROWNER flags, every register in
// the output, and the advisory flags on a quote and collateral re-signed by a test PKI
// (tests/unit/verify/tdx/test_quote_signer.h) whose TCB Info reports SWHardeningNeeded.
#include "unit/verify/tdx/test_quote_signer.h"

#include "attestation/tdx/quote.h"
#include "base/hex.h"
#include "unit/verify/tdx/tdx_test_data.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

std::vector<std::string> real_quote_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"report", "--file", attestation("tdx/tdx-v4-edgeless.dat"), "--at", "2025-09-01",
                                "--no-tcb-check"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

verify::tdx::TdxQuote real_quote() {
  return verify::tdx::parse_tdx_quote(read_bytes(attestation("tdx/tdx-v4-edgeless.dat")));
}

template <size_t N>
std::string flipped_hex(const std::array<uint8_t, N>& value, size_t byte) {
  std::array<uint8_t, N> v = value;
  v[byte] ^= 0x01;
  return to_hex(v);
}

TEST(VerifyCliTdxPolicy, EveryRegisterIsShownInJsonAndText) {
  const auto q = real_quote();
  CliResult r = run_verify(real_quote_args({"--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  ASSERT_TRUE(j.contains("tdx")) << r.out;
  EXPECT_EQ(j["tdx"]["mrtd"], kEdgelessMrtd);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(j["tdx"]["rtmr" + std::to_string(i)], to_hex(q.body.rtmr[i]));
  EXPECT_EQ(j["tdx"]["mrconfigid"], to_hex(q.body.mr_config_id));
  EXPECT_EQ(j["tdx"]["mrowner"], to_hex(q.body.mr_owner));
  EXPECT_EQ(j["tdx"]["mrownerconfig"], to_hex(q.body.mr_owner_config));
  EXPECT_EQ(j["advisory_ids"], nlohmann::json::array());
  r = run_verify(real_quote_args({}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mrtd: " + std::string(kEdgelessMrtd) + "\n"), std::string::npos) << r.out;
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NE(r.out.find("rtmr" + std::to_string(i) + ": " + to_hex(q.body.rtmr[i]) + "\n"), std::string::npos)
        << r.out;
  for (const char* key : {"mrconfigid: ", "mrowner: ", "mrownerconfig: "})
    EXPECT_NE(r.out.find(key + std::string(96, '0') + "\n"), std::string::npos) << r.out;
  // SEV-SNP reports have no TDX registers.
  r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--vcek",
                  attestation("sev-snp/sev-gcp-vcek.pem"), "--format", "json"});
  EXPECT_FALSE(parse_json_output(r).contains("tdx")) << r.out;
}

TEST(VerifyCliTdxPolicy, ExpectedRtmr) {
  const auto q = real_quote();
  std::vector<std::string> all;
  for (size_t i = 0; i < 4; ++i) {
    all.push_back("--expected-rtmr");
    all.push_back(std::to_string(i) + "=" + to_hex(q.body.rtmr[i]));
  }
  CliResult r = run_verify(real_quote_args(all));
  EXPECT_EQ(r.status, 0) << r.err;
  for (size_t i = 0; i < 4; ++i) {
    r = run_verify(real_quote_args(
        {"--expected-rtmr", std::to_string(i) + "=" + flipped_hex(q.body.rtmr[i], 7), "--format", "json"}));
    expect_one_line_error(r, 3);
    const auto j = parse_json_output(r);
    EXPECT_EQ(j["failed_step"], "measurement_mismatch");
    EXPECT_NE(j["message"].get<std::string>().find("RTMR" + std::to_string(i)), std::string::npos) << r.out;
  }
  // Several values for one index: any of.
  r = run_verify(real_quote_args({"--expected-rtmr", "3=" + flipped_hex(q.body.rtmr[3], 0), "--expected-rtmr",
                                  "3=" + to_hex(q.body.rtmr[3])}));
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(VerifyCliTdxPolicy, ExpectedMrConfigIdAndMrOwner) {
  const auto q = real_quote();
  CliResult r = run_verify(real_quote_args({"--expected-mrconfigid", to_hex(q.body.mr_config_id),
                                            "--expected-mrowner", to_hex(q.body.mr_owner)}));
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_verify(
      real_quote_args({"--expected-mrconfigid", flipped_hex(q.body.mr_config_id, 0), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "measurement_mismatch");
  EXPECT_NE(parse_json_output(r)["message"].get<std::string>().find("MRCONFIGID"), std::string::npos);
  r = run_verify(real_quote_args({"--expected-mrowner", flipped_hex(q.body.mr_owner, 47), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "measurement_mismatch");
  EXPECT_NE(parse_json_output(r)["message"].get<std::string>().find("MROWNER"), std::string::npos);
}

TEST(VerifyCliTdxPolicy, BadValuesAreUsageErrors) {
  const std::string hex96(96, 'a');
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--expected-rtmr", "4=" + hex96},
           {"--expected-rtmr", hex96},
           {"--expected-rtmr", "0:" + hex96},
           {"--expected-rtmr", "0=" + hex96.substr(2)},
           {"--expected-rtmr", "0=" + hex96.substr(2) + "zz"},
           {"--expected-rtmr", "00=" + hex96},
           {"--expected-rtmr", ""},
           {"--expected-mrconfigid", "abcd"},
           {"--expected-mrconfigid", ""},
           {"--expected-mrowner", hex96 + "00"},
           {"--reject-advisory", "INTEL SA 1"},
           {"--reject-advisory", ""},
           {"--reject-advisory", "INTEL-SA-00615"},  // with --no-tcb-check: contradicts it
           {"--reject-advisory-status"},
       }) {
    const CliResult r = run_verify(real_quote_args(bad));
    expect_one_line_error(r, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.find("zz"), std::string::npos) << r.err;  // the value is not echoed
  }
  // TDX flags on an SEV-SNP report.
  const CliResult r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--vcek",
                                  attestation("sev-snp/sev-gcp-vcek.pem"), "--expected-mrowner",
                                  std::string(96, '0')});
  expect_one_line_error(r, 2);
}

// A quote re-signed by the test PKI with the real quote's QE report (Intel's TD QE), and collateral of
// that PKI whose platform TCB level is SWHardeningNeeded with advisories INTEL-SA-00079 and -00076.
class VerifyCliTdxAdvisory : public ::testing::Test {
 protected:
  void SetUp() override {
    using verify::tdx::testing::QeReportFrom;
    const verify::tdx::testing::TestQuoteSigner signer;
    const auto sample = verify::tdx::parse_tdx_quote(read_bytes(attestation("tdx/quote.dat")));
    const std::vector<uint8_t> body(sample.signed_bytes.begin() + 48, sample.signed_bytes.end());
    quote_ = dir_.write("quote.dat", signer.quote(body, QeReportFrom::kRealTdQe));
    root_ = dir_.write("root.pem", signer.root_pem());
    const auto c = signer.collateral("\"tcbStatus\":\"UpToDate\"", "\"tcbStatus\":\"SWHardeningNeeded\"",
                                     QeReportFrom::kRealTdQe);
    dir_.write("collateral/tcbInfo.json", c.tcb_info_json);
    dir_.write("collateral/qeIdentity.json", c.qe_identity_json);
    dir_.write("collateral/tcbSignChain.pem", c.tcb_sign_chain_pem);
  }
  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"report", "--file", quote_, "--root", root_, "--collateral",
                                  dir_.path() + "/collateral", "--at", "2025-09-01"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  ScratchDir dir_;
  std::string quote_, root_;
};

TEST_F(VerifyCliTdxAdvisory, SwHardeningNeededIsAcceptedAndShowsItsAdvisories) {
  CliResult r = run_verify(args({"--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["tcb_status"], "SWHardeningNeeded");
  EXPECT_EQ(j["advisory_ids"], nlohmann::json::array({"INTEL-SA-00079", "INTEL-SA-00076"}));
  r = run_verify(args({}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tcb_status: SWHardeningNeeded\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("advisory_ids: INTEL-SA-00079, INTEL-SA-00076\n"), std::string::npos) << r.out;
}

TEST_F(VerifyCliTdxAdvisory, RejectAdvisoryStatus) {
  const CliResult r = run_verify(args({"--reject-advisory-status", "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "advisory_rejected");
  EXPECT_EQ(j["advisory_ids"], nlohmann::json::array({"INTEL-SA-00079", "INTEL-SA-00076"}));
}

TEST_F(VerifyCliTdxAdvisory, RejectAdvisoryById) {
  CliResult r = run_verify(args({"--reject-advisory", "INTEL-SA-00615", "--reject-advisory", "intel-sa-00076",
                                 "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "advisory_rejected");
  EXPECT_NE(r.err.find("INTEL-SA-00076"), std::string::npos) << r.err;
  r = run_verify(args({"--reject-advisory", "INTEL-SA-00615"}));
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
}  // namespace a3s::power::verify_cli

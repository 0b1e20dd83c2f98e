// a3s-power-verify report on TDX quotes: the real quote with its embedded PCK chain (pinned Intel
// SGX Root CA), and Intel's DCAP sample quote with its PCK chain files, sample root and collateral.
#include <filesystem>

#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

std::vector<std::string> edgeless_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"report", "--file", attestation("tdx/tdx-v4-edgeless.dat"), "--at",
                                "2025-09-01"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::vector<std::string> sample_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"report",
                                "--file",
                                attestation("tdx/quote.dat"),
                                "--cert-chain",
                                attestation("tdx/pckCert.pem"),
                                "--cert-chain",
                                attestation("tdx/pckSignChain.pem"),
                                "--at",
                                "2025-09-01"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(VerifyCliTdx, RealQuoteSignaturesAndChainOnly) {
  const CliResult r = run_verify(edgeless_args({"--no-tcb-check", "--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["tee_type"], "tdx");
  EXPECT_EQ(j["measurement"], kEdgelessMrtd);
  EXPECT_EQ(j["report_data"], edgeless_report_data());
  EXPECT_EQ(j["tcb_status"], "not_checked");
  EXPECT_EQ(j["skipped"], nlohmann::json::array({"tcb", "crl"}));
}

TEST(VerifyCliTdx, NoTcbCheckIsVisibleInText) {
  const CliResult r = run_verify(edgeless_args({"--no-tcb-check"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("accepted: tdx quote\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("tcb_status: not_checked\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped: tcb"), std::string::npos) << r.out;
}

TEST(VerifyCliTdx, RealQuoteWithoutCollateralFailsClosed) {
  const CliResult r = run_verify(edgeless_args({"--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["failed_step"], "collateral_missing");
  EXPECT_NE(r.err.find("collateral_missing"), std::string::npos);
}

TEST(VerifyCliTdx, RealQuoteMeasurementAndReportDataPolicy) {
  EXPECT_EQ(run_verify(edgeless_args({"--no-tcb-check", "--expected-measurement", kEdgelessMrtd,
                                      "--expected-report-data", edgeless_report_data()}))
                .status,
            0);
  CliResult r = run_verify(
      edgeless_args({"--no-tcb-check", "--expected-measurement", std::string(96, '0'), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "measurement_mismatch");
  r = run_verify(
      edgeless_args({"--no-tcb-check", "--expected-report-data", std::string(128, 'f'), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "report_data_mismatch");
}

TEST(VerifyCliTdx, RealQuoteAgainstSampleRootRejected) {
  const CliResult r = run_verify(edgeless_args(
      {"--no-tcb-check", "--root", attestation("tdx/trustedRootCaCert.pem"), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "chain_invalid");
}

// Intel's sample quote verifies up to its QE report with its sample root, but its quoting enclave
// (MRSIGNER e4bd9fc2..., ISVPRODID 29854) is not Intel's TD QE: --no-tcb-check skips the TCB status,
// never the QE identity, so it is rejected there.
TEST(VerifyCliTdx, SampleQuoteWithItsSampleRootIsRejectedAtTheQeIdentity) {
  const CliResult r = run_verify(sample_args(
      {"--root", attestation("tdx/trustedRootCaCert.pem"), "--no-tcb-check", "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "qe_identity_mismatch");
  EXPECT_NE(j["message"].get<std::string>().find("Intel's TD QE"), std::string::npos) << r.out;
  EXPECT_NE(j["message"].get<std::string>().find("e4bd9fc2"), std::string::npos) << r.out;
  EXPECT_EQ(j["tee_type"], "tdx");
  EXPECT_EQ(j["measurement"], std::string(96, '0'));
  EXPECT_EQ(j["report_data"], std::string(128, '0'));
  EXPECT_NE(r.err.find("rejected: qe_identity_mismatch"), std::string::npos) << r.err;
  const CliResult text = run_verify(sample_args({"--root", attestation("tdx/trustedRootCaCert.pem"), "--no-tcb-check"}));
  EXPECT_EQ(text.status, 3);
  EXPECT_NE(text.out.find("failed_step: qe_identity_mismatch\n"), std::string::npos) << text.out;
}

TEST(VerifyCliTdx, SampleQuoteAgainstRealRootRejected) {
  const CliResult r = run_verify(sample_args({"--no-tcb-check", "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "chain_invalid");
}

// Intel's sample QE Identity names another MRSIGNER than the sample quote's QE report, so the full
// TCB check with the sample collateral stops at qe_identity_mismatch (after the platform TCB passed).
TEST(VerifyCliTdx, SampleQuoteFullTcbCheckStopsAtQeIdentity) {
  const CliResult r = run_verify(sample_args({"--root", attestation("tdx/trustedRootCaCert.pem"),
                                              "--collateral", attestation("tdx"), "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "qe_identity_mismatch");
  EXPECT_EQ(j["tcb_status"], "UpToDate");
  EXPECT_EQ(j["skipped"], nlohmann::json::array());  // the collateral's CRLs were applied
}

// Collateral without CRLs: revocation is not checked, and the output says so. (With --no-tcb-check
// the sample QE Identity is still checked, and names another QE than the sample quote's.)
TEST(VerifyCliTdx, CollateralWithoutCrlsListsCrlAsSkipped) {
  ScratchDir dir;
  for (const char* name : {"tcbInfo.json", "qeIdentity.json", "tcbSignChain.pem"}) {
    std::filesystem::copy_file(attestation(std::string("tdx/") + name), dir.path() + "/" + name);
  }
  const CliResult r = run_verify(sample_args({"--root", attestation("tdx/trustedRootCaCert.pem"), "--collateral",
                                              dir.path(), "--no-tcb-check", "--format", "json"}));
  EXPECT_EQ(r.status, 3) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "qe_identity_mismatch");
  EXPECT_EQ(j["skipped"], nlohmann::json::array({"tcb", "crl"}));
}

TEST(VerifyCliTdx, CollateralDirectoryWithoutFilesIsAnIoError) {
  ScratchDir empty;
  const CliResult r = run_verify(edgeless_args({"--collateral", empty.path()}));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
}

TEST(VerifyCliTdx, VcekIsAUsageError) {
  const CliResult r =
      run_verify(edgeless_args({"--no-tcb-check", "--vcek", attestation("sev-snp/sev-gcp-vcek.pem")}));
  expect_one_line_error(r, 2);
}

}  // namespace
}  // namespace a3s::power::verify_cli

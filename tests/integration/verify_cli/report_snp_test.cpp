// a3s-power-verify report on the real Google Cloud SEV-SNP report and its VCEK (pinned Milan ARK/ASK).
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

std::vector<std::string> snp_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--vcek",
                                attestation("sev-snp/sev-gcp-vcek.pem")};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

const std::string kWrongMeasurement(96, 'a');

TEST(VerifyCliSnp, RealReportAcceptedWithItsVcek) {
  const CliResult r = run_verify(snp_args({"--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["tee_type"], "sev-snp");
  EXPECT_FALSE(j.contains("failed_step"));
  EXPECT_EQ(j["measurement"], kSnpMeasurement);
  EXPECT_EQ(j["report_data"], kSnpReportData);
  EXPECT_EQ(j["tcb_status"], "meets_minimum");  // the default minimum TCB (Milan)
  EXPECT_EQ(j["skipped"], nlohmann::json::array({"crl"}));
}

TEST(VerifyCliSnp, TextOutputIsAFewLines) {
  const CliResult r = run_verify(snp_args());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("accepted: sev-snp report\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(std::string("measurement: ") + kSnpMeasurement + "\n"), std::string::npos);
  EXPECT_NE(r.out.find(std::string("report_data: ") + kSnpReportData + "\n"), std::string::npos);
  EXPECT_NE(r.out.find("tcb_status: meets_minimum\n"), std::string::npos);
}

TEST(VerifyCliSnp, ExplicitCertChainAccepted) {
  const CliResult r = run_verify(snp_args({"--cert-chain", attestation("sev-snp/sev-gcp-cert-chain.pem")}));
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(VerifyCliSnp, ExpectedMeasurementAnyOf) {
  EXPECT_EQ(run_verify(snp_args({"--expected-measurement", kSnpMeasurement})).status, 0);
  // A list means "any of"; upper case hex is accepted.
  std::string upper = kSnpMeasurement;
  for (auto& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(
      run_verify(snp_args({"--expected-measurement", kWrongMeasurement, "--expected-measurement", upper}))
          .status,
      0);
}

TEST(VerifyCliSnp, WrongMeasurementRejected) {
  const CliResult r = run_verify(snp_args({"--expected-measurement", kWrongMeasurement, "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["failed_step"], "measurement_mismatch");
  EXPECT_EQ(j["measurement"], kSnpMeasurement);  // what the report says, for the operator to compare
  EXPECT_NE(r.err.find("measurement_mismatch"), std::string::npos) << r.err;
}

TEST(VerifyCliSnp, ReportDataPolicy) {
  EXPECT_EQ(run_verify(snp_args({"--expected-report-data", kSnpReportData})).status, 0);
  const CliResult r =
      run_verify(snp_args({"--expected-report-data", std::string(128, '0'), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "report_data_mismatch");
}

TEST(VerifyCliSnp, WithoutVcekRejected) {
  const CliResult r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin")});
  expect_one_line_error(r, 3);
  EXPECT_NE(r.out.find("failed_step: certificate_missing\n"), std::string::npos) << r.out;
}

TEST(VerifyCliSnp, AfterVcekExpiryCollateralExpired) {
  const CliResult r = run_verify(snp_args({"--at", "2099-01-01", "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "collateral_expired");
}

TEST(VerifyCliSnp, MinimumTcb) {
  EXPECT_EQ(run_verify(snp_args({"--min-tcb", "bl=0,tee=0,snp=0,ucode=0", "--format", "json"})).status, 0);
  const CliResult r =
      run_verify(snp_args({"--min-tcb", "bl=255,tee=255,snp=255,ucode=255", "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "tcb_out_of_date");
  EXPECT_EQ(j["tcb_status"], "out_of_date");
}

TEST(VerifyCliSnp, NoTcbCheckSaysSo) {
  const CliResult r = run_verify(snp_args({"--no-tcb-check", "--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["tcb_status"], "not_checked");
  EXPECT_EQ(j["skipped"], nlohmann::json::array({"tcb", "crl"}));
}

TEST(VerifyCliSnp, WrongRootRejected) {
  // Intel's root is not an AMD ARK: the VCEK's chain does not end at it.
  const CliResult r =
      run_verify(snp_args({"--root", attestation("intel-sgx-root-ca.pem"), "--format", "json"}));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "chain_invalid");
}

TEST(VerifyCliSnp, CollateralDirectoryIsAUsageError) {
  const CliResult r = run_verify(snp_args({"--collateral", attestation("tdx")}));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace a3s::power::verify_cli

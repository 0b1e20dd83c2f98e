// Usage and IO errors: exit 2, one line on stderr, nothing on stdout (nothing was verified).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

const std::string kSnp = attestation("sev-snp/sev-gcp-reportdata.bin");

void expect_usage_error(const std::vector<std::string>& args) {
  const CliResult r = run_verify(args);
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(VerifyCliUsage, NoSubcommand) {
  expect_usage_error({});
}

TEST(VerifyCliUsage, MissingFile) {
  expect_usage_error({"report"});
}

TEST(VerifyCliUsage, UnreadableFiles) {
  expect_usage_error({"report", "--file", "/nonexistent/evidence.bin"});
  expect_usage_error({"report", "--file", A3S_TESTDATA_DIR});  // a directory
  expect_usage_error({"report", "--file", kSnp, "--vcek", "/nonexistent/vcek.pem"});
  expect_usage_error({"report", "--file", kSnp, "--root", "/nonexistent/ark.pem"});
}

TEST(VerifyCliUsage, BadHex) {
  expect_usage_error({"report", "--file", kSnp, "--expected-measurement", "abc"});
  expect_usage_error({"report", "--file", kSnp, "--expected-measurement", std::string(95, 'a') + "g"});
  expect_usage_error({"report", "--file", kSnp, "--expected-report-data", std::string(126, '0')});
}

TEST(VerifyCliUsage, BadHexIsNotEchoed) {
  const std::string secretish = std::string(94, '1') + "zz";
  const CliResult r = run_verify({"report", "--file", kSnp, "--expected-measurement", secretish});
  expect_one_line_error(r, 2);
  EXPECT_EQ(r.err.find(secretish), std::string::npos) << r.err;
}

TEST(VerifyCliUsage, BadTime) {
  for (const char* t : {"yesterday", "2025-13-01", "2025-02-30", "2025-09-01T25:00:00Z",
                        "2025-09-01T00:00:00", "2025-09-01Z", "20250901"})
    expect_usage_error({"report", "--file", kSnp, "--at", t});
}

// The GCP VCEK's notBefore is 2025-12-05 06:04:27 UTC: one second either side of it, written in
// several accepted forms, shows the time is read exactly (offsets included).
TEST(VerifyCliUsage, GoodTimes) {
  const std::string vcek = attestation("sev-snp/sev-gcp-vcek.pem");
  auto status_at = [&](const char* t) {
    return run_verify({"report", "--file", kSnp, "--vcek", vcek, "--at", t}).status;
  };
  for (const char* t : {"2025-12-05T06:04:28Z", "2025-12-05t06:04:28.75z", "2025-12-05 08:04:28+02:00",
                        "2025-12-04T23:04:28-07:00", "2025-12-06"})
    EXPECT_EQ(status_at(t), 0) << t;
  for (const char* t : {"2025-12-05T06:04:26Z", "2025-12-05T07:04:26+01:00", "2025-12-05"})
    EXPECT_EQ(status_at(t), 3) << t;  // collateral_expired: the VCEK is not yet valid
}

TEST(VerifyCliUsage, BadFormatAndMinTcb) {
  expect_usage_error({"report", "--file", kSnp, "--format", "yaml"});
  expect_usage_error({"report", "--file", kSnp, "--min-tcb", "bl=1,tee=2"});
  expect_usage_error({"report", "--file", kSnp, "--min-tcb", "bl=1,tee=2,snp=3,ucode=256"});
}

// An option given with an empty value is a usage error: an unset shell variable must never switch a
// check off.
TEST(VerifyCliUsage, EmptyValuesAreErrors) {
  const std::string vcek = attestation("sev-snp/sev-gcp-vcek.pem");
  for (const char* opt : {"--expected-report-data", "--min-tcb", "--at", "--root", "--cert-chain", "--vcek"}) {
    expect_usage_error({"report", "--file", kSnp, "--vcek", vcek, opt, ""});
  }
  expect_usage_error({"report", "--file", ""});
}

TEST(VerifyCliUsage, MinimumTcbWithoutTcbCheckIsAContradiction) {
  expect_usage_error({"report", "--file", kSnp, "--vcek", attestation("sev-snp/sev-gcp-vcek.pem"), "--no-tcb-check",
                      "--min-tcb", "bl=255,tee=255,snp=255,ucode=255"});
}

// Times outside what every verifier represents exactly are refused, not wrapped around.
TEST(VerifyCliUsage, TimesOutsideTheSupportedRange) {
  const std::string vcek = attestation("sev-snp/sev-gcp-vcek.pem");
  for (const char* at : {"1442-05-01", "1969-12-31", "2611-07-01", "9999-12-31"}) {
    expect_usage_error({"report", "--file", kSnp, "--vcek", vcek, "--at", at});
  }
}

// Only regular files are read: a FIFO would block the open, a device would never end.
TEST(VerifyCliUsage, NonRegularFilesAreRefused) {
  const std::string dir = ::testing::TempDir() + "verify-fifo-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/evidence";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_usage_error({"report", "--file", fifo});
  expect_usage_error({"report", "--file", "/dev/zero"});
  expect_usage_error({"report", "--file", kSnp, "--vcek", fifo});
  // A collateral file that is a FIFO or a device: refused without reading it.
  const std::string tdx = attestation("tdx/");
  for (const char* name : {"qeIdentity.json", "tcbSignChain.pem", "rootCaCrl.der", "intermediateCaCrl.der"}) {
    std::filesystem::copy_file(tdx + name, dir + "/" + name);
  }
  ASSERT_EQ(::mkfifo((dir + "/tcbInfo.json").c_str(), 0600), 0);
  const CliResult r = run_verify({"report", "--file", tdx + "quote.dat", "--cert-chain", tdx + "pckCert.pem",
                                  "--cert-chain", tdx + "pckSignChain.pem", "--root", tdx + "trustedRootCaCert.pem",
                                  "--collateral", dir, "--at", "2025-09-01"});
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("tcbInfo.json is not a readable regular file"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace a3s::power::verify_cli

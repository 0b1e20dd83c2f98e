// Simulated evidence is recognised by its chain in every mode: an offline `report` of the simulated
// TEE's SEV-SNP report, verified against its own root given with --root, is refused unless
// --allow-simulated is given to `report`, and is then labelled SIMULATED (text) / "simulated": true
// (JSON), never an accepted hardware report. The live mode refuses --allow-simulated for a URL whose
// host is not loopback: a simulated answer brings its own root.
#include "unit/verify/attestation/attestation_builder.h"
#include "attestation/sev_snp/cert_table.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace report_simulated_test {

using namespace verify_attestation_testing;

// The simulated provider's report and its VCEK, ASK + ARK and root, as files.
struct SimulatedReportFiles {
  ScratchDir dir;
  std::string report, vcek, chain, root;

  SimulatedReportFiles() {
    tee::SimulatedProvider provider;
    const tee::Evidence ev = provider.get_evidence(make_claims(test_nonce(81)).report_data());
    std::string error;
    const auto table = verify::sev_snp::parse_cert_table(ev.certificates, error);
    EXPECT_TRUE(table) << error;
    report = dir.write("report.bin", ev.raw);
    vcek = dir.write("vcek.pem", provider.vcek_pem());
    chain = dir.write("chain.der", table ? table->ask + table->ark : std::string());
    root = dir.write("root.pem", provider.root_pem());
  }

  std::vector<std::string> args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {"report", "--file", report, "--vcek", vcek, "--cert-chain", chain,
                                  "--root", root,   "--no-tcb-check"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

TEST(VerifyReportSimulated, RefusedWithoutAllowSimulatedEvenUnderItsRoot) {
  const SimulatedReportFiles files;
  const CliResult json_run = run_verify(files.args({"--format", "json"}));
  EXPECT_EQ(json_run.status, 3) << json_run.out << json_run.err;
  const nlohmann::json j = parse_json_output(json_run);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["failed_step"], "simulated_evidence");
  EXPECT_EQ(j["simulated"], true);

  const CliResult text = run_verify(files.args({}));
  EXPECT_EQ(text.status, 3);
  EXPECT_EQ(text.out.find("accepted"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("rejected: SIMULATED sev-snp report"), std::string::npos) << text.out;
}

TEST(VerifyReportSimulated, AcceptedWithAllowSimulatedAndLabelled) {
  const SimulatedReportFiles files;
  const CliResult json_run = run_verify(files.args({"--allow-simulated", "--format", "json"}));
  ASSERT_EQ(json_run.status, 0) << json_run.out << json_run.err;
  const nlohmann::json j = parse_json_output(json_run);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["simulated"], true);

  const CliResult text = run_verify(files.args({"--allow-simulated"}));
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("accepted: SIMULATED sev-snp report\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("accepted: sev-snp report"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("warning: the report verifies under the simulated root"), std::string::npos);
}

TEST(VerifyReportSimulated, HardwareReportIsNotLabelledSimulated) {
  const CliResult r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--vcek",
                                  attestation("sev-snp/sev-gcp-vcek.pem"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_json_output(r)["simulated"], false);
}

TEST(VerifyLiveSimulatedUrl, AllowSimulatedIsRefusedForANonLoopbackHost) {
  const std::string hash = model_digest_arg();
  for (const char* url : {"https://203.0.113.7:8443", "https://example.com", "https://[2001:db8::1]:443",
                          "https://127.0.0.1.example.com"}) {
    const CliResult r = run_verify({"--url", url, "--model", kModel, "--expected-hash", hash, "--allow-simulated"});
    testing::expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("--allow-simulated is only accepted for a loopback URL"), std::string::npos)
        << url << ": " << r.err;
    const CliResult ratls = run_verify(
        {"--ratls", "--url", url, "--model", kModel, "--expected-hash", hash, "--allow-simulated"});
    testing::expect_one_line_error(ratls, 2);
  }
}

}  // namespace report_simulated_test
}  // namespace a3s::power::verify_cli

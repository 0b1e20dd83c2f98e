// a3s-power-verify report: the SEV-SNP guest checks as a user sees them: VMPL shown and compared
// (--vmpl), MIGRATE_MA refused unless --allow-migration-agent, the default minimum TCB table and
// --min-tcb, the product's own roots. The real GCP report for accept cases; reports signed by a local
// hierarchy (its ARK as --root) for reject cases.
#include "attestation/simulated/local_key_hierarchy.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

namespace snp = a3s::power::verify::sev_snp;

std::vector<std::string> gcp_policy_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--vcek",
                                attestation("sev-snp/sev-gcp-vcek.pem")};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// A Milan report signed by a local ARK → ASK → VCEK, the files written to a scratch directory.
struct PolicyLocalSnp {
  snp::LeafSpec spec;
  std::unique_ptr<snp::LocalKeyHierarchy> chain;
  ScratchDir files;
  std::string ark, ask, vcek;

  explicit PolicyLocalSnp(snp::TcbVersion tcb) {
    spec.tcb = tcb;
    for (std::size_t i = 0; i < 64; ++i) spec.hw_id.push_back(static_cast<uint8_t>(0x50 + i));
    chain = std::make_unique<snp::LocalKeyHierarchy>(spec);
    ark = files.write("ark.pem", chain->ark_pem);
    ask = files.write("ask.pem", chain->ask_pem);
    vcek = files.write("vcek.pem", chain->vcek_pem);
  }

  snp::Report report() const {
    snp::Report r;
    r.version = 5;
    r.cpuid_fam_id = 0x19;
    r.cpuid_mod_id = 0x01;
    r.reported_tcb = snp::encode_tcb(spec.tcb, snp::TcbLayout::kMilanGenoa);
    r.current_tcb = r.committed_tcb = r.launch_tcb = r.reported_tcb;
    std::copy(spec.hw_id.begin(), spec.hw_id.end(), r.chip_id.begin());
    return r;
  }

  std::vector<std::string> args(const snp::Report& r, std::vector<std::string> extra = {}) const {
    const std::string file = files.write("report.bin", chain->sign(r));
    std::vector<std::string> a = {"report", "--file", file, "--vcek", vcek, "--cert-chain", ask, "--root", ark,
                                  "--format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

// The Milan entry of the default table (bl=4 tee=0 snp=27 ucode=222).
const snp::TcbVersion kPolicyCurrentMilan{0, 4, 0, 27, 222};

TEST(VerifyCliSnpPolicy, RealReportShowsVmplProductAndTheDefaultMinimum) {
  const CliResult r = run_verify(gcp_policy_args({"--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["product"], "Milan");
  EXPECT_EQ(j["vmpl"], 1);
  EXPECT_EQ(j["minimum_tcb"]["source"], "default");
  EXPECT_EQ(j["minimum_tcb"]["tcb"], "bl=4 tee=0 snp=27 ucode=222");
  EXPECT_EQ(j["minimum_tcb"]["table_date"], "2026-12-02");
  EXPECT_EQ(j["tcb_status"], "meets_minimum");
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("VMPL 1"), std::string::npos);

  const CliResult text = run_verify(gcp_policy_args());
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("product: Milan\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("vmpl: 1\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("minimum_tcb: bl=4 tee=0 snp=27 ucode=222 (default table of 2026-12-02)\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("warning: the report is from VMPL 1"), std::string::npos) << text.out;
}

TEST(VerifyCliSnpPolicy, GivenMinimumIsShownAsGiven) {
  const CliResult r = run_verify(gcp_policy_args({"--min-tcb", "bl=1,tee=0,snp=2,ucode=3", "--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["minimum_tcb"]["source"], "given");
  EXPECT_EQ(j["minimum_tcb"]["tcb"], "bl=1 tee=0 snp=2 ucode=3");
  EXPECT_FALSE(j["minimum_tcb"].contains("table_date"));
  const CliResult none = run_verify(gcp_policy_args({"--no-tcb-check", "--format", "json"}));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(parse_json_output(none)["minimum_tcb"]["source"], "none");
}

TEST(VerifyCliSnpPolicy, VmplEnforcedWhereGiven) {
  EXPECT_EQ(run_verify(gcp_policy_args({"--vmpl", "1"})).status, 0);
  const CliResult r = run_verify(gcp_policy_args({"--vmpl", "0", "--format", "json"}));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "vmpl_mismatch");
  EXPECT_EQ(j["vmpl"], 1);
  EXPECT_NE(r.err.find("vmpl_mismatch"), std::string::npos) << r.err;
}

TEST(VerifyCliSnpPolicy, BadVmplIsAUsageError) {
  for (const char* bad : {"4", "-1", "x", "01", ""}) {
    const CliResult r = run_verify(gcp_policy_args({"--vmpl", bad}));
    expect_one_line_error(r, 2);
    EXPECT_TRUE(r.out.empty()) << bad;
  }
  // TDX quotes have no VMPL.
  const CliResult tdx = run_verify({"report", "--file", attestation("tdx/tdx-v4-edgeless.dat"), "--no-tcb-check",
                                    "--at", "2025-09-01", "--vmpl", "0"});
  expect_one_line_error(tdx, 2);
}

TEST(VerifyCliSnpPolicy, AnotherProductsChainIsRefused) {
  for (const char* chain : {"sev-snp/amd-roots/ask_ark_genoa.pem", "sev-snp/amd-roots/ask_ark_turin_vcek.pem"}) {
    const CliResult r = run_verify(gcp_policy_args({"--cert-chain", attestation(chain), "--format", "json"}));
    expect_one_line_error(r, 3);
    EXPECT_EQ(parse_json_output(r)["failed_step"], "chain_invalid") << chain;
  }
  EXPECT_EQ(run_verify(gcp_policy_args({"--cert-chain", attestation("sev-snp/amd-roots/ask_ark_milan.pem")})).status,
            0);
}

TEST(VerifyCliSnpPolicy, MigrationAgentRefusedUnlessAllowed) {
  const PolicyLocalSnp local(kPolicyCurrentMilan);
  snp::Report report = local.report();
  EXPECT_EQ(run_verify(local.args(report)).status, 0);
  report.policy |= snp::policy_bits::kMigrateMa;
  const CliResult r = run_verify(local.args(report));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "migration_agent_allowed");
  const CliResult allowed = run_verify(local.args(report, {"--allow-migration-agent"}));
  ASSERT_EQ(allowed.status, 0) << allowed.err;
  const auto j = parse_json_output(allowed);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("MIGRATE_MA"), std::string::npos);
}

TEST(VerifyCliSnpPolicy, DefaultMinimumRefusesAnOlderTcb) {
  const PolicyLocalSnp local(snp::TcbVersion{0, 3, 0, 20, 209});
  const CliResult r = run_verify(local.args(local.report()));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "tcb_out_of_date");
  EXPECT_EQ(j["tcb_status"], "out_of_date");
  EXPECT_EQ(j["minimum_tcb"]["source"], "default");
  // Overridden by the client: accepted against its own minimum.
  const CliResult given = run_verify(local.args(local.report(), {"--min-tcb", "bl=3,tee=0,snp=20,ucode=209"}));
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_EQ(parse_json_output(given)["minimum_tcb"]["source"], "given");
}

}  // namespace
}  // namespace a3s::power::verify_cli

// The guest checks after the signature: MIGRATE_MA, VMPL and the minimum TCB (given, or the default
// table's entry for the report's product). Accept cases use the real GCP report (VMPL 1, MIGRATE_MA
// clear, REPORTED_TCB bl=4 tee=0 snp=27 ucode=222); reject cases sign reports with a local hierarchy.
#include <gtest/gtest.h>

#include "local_amd_chain.h"
#include "snp_test_data.h"
#include "verify/sev_snp/default_minimum_tcb.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::verify::sev_snp {
namespace {

using testing::LeafSpec;
using testing::LocalAmdChain;

Endorsements guest_gcp_vcek() {
  return {testing::read_text(testing::snp_testdata("sev-gcp-vcek.pem")), {}};
}

// A v5 report of `model` (family 0x19) that `spec`'s VCEK endorses.
Report guest_report(const LeafSpec& spec, uint8_t model = 0x01) {
  Report r;
  r.version = 5;
  r.cpuid_fam_id = 0x19;
  r.cpuid_mod_id = model;
  r.reported_tcb = encode_tcb(spec.tcb, TcbLayout::kMilanGenoa);
  r.current_tcb = r.committed_tcb = r.launch_tcb = r.reported_tcb;
  std::copy(spec.hw_id.begin(), spec.hw_id.end(), r.chip_id.begin());
  return r;
}

LeafSpec guest_spec(const char* product = "Milan-B0") {
  LeafSpec spec;
  for (size_t i = 0; i < 64; ++i) spec.hw_id.push_back(static_cast<uint8_t>(0x30 + i));
  spec.product_name = product;
  return spec;
}

VerifyResult guest_verify(const LocalAmdChain& chain, const Report& report, const Policy& policy,
                          VerifyDetails* details = nullptr) {
  VerifyOptions o;
  o.anchors = chain.anchors();
  return verify_report(chain.sign(report), {chain.vcek_pem, {}}, policy, o, nullptr, details);
}

// ---- MIGRATE_MA (GUEST_POLICY bit 18) ----

TEST(GuestPolicy, MigrateMaIsRefusedByDefault) {
  const LeafSpec spec = guest_spec();
  const LocalAmdChain chain(spec);
  Report report = guest_report(spec);
  EXPECT_TRUE(guest_verify(chain, report, {}).accepted);
  report.policy |= policy_bits::kMigrateMa;
  const VerifyResult r = guest_verify(chain, report, {});
  EXPECT_EQ(r.failed_step, "migration_agent_allowed");
  EXPECT_NE(r.message.find("MIGRATE_MA"), std::string::npos) << r.message;
  // Debugging is still reported first: it is the stronger refusal.
  report.policy |= policy_bits::kDebug;
  EXPECT_EQ(guest_verify(chain, report, {}).failed_step, "debug_enabled");
}

TEST(GuestPolicy, MigrateMaAcceptedOnlyWhenAllowed) {
  const LeafSpec spec = guest_spec();
  const LocalAmdChain chain(spec);
  Report report = guest_report(spec);
  report.policy |= policy_bits::kMigrateMa;
  Policy p;
  p.allow_migration_agent = true;
  const VerifyResult r = guest_verify(chain, report, p);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST(GuestPolicy, RealReportHasNoMigrationAgentAndIsAccepted) {
  const auto bytes = testing::real_report();
  EXPECT_EQ(parse_report(bytes).policy & policy_bits::kMigrateMa, 0u);
  const VerifyResult r = verify_report(bytes, guest_gcp_vcek(), {}, testing::at_2026());
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

// ---- VMPL ----

TEST(GuestVmpl, RealReportIsVmpl1AndMatchesOnlyVmpl1) {
  const auto bytes = testing::real_report();
  Policy p;
  p.vmpl = 1;
  const VerifyResult ok = verify_report(bytes, guest_gcp_vcek(), p, testing::at_2026());
  EXPECT_TRUE(ok.accepted) << ok.failed_step << ": " << ok.message;
  for (uint32_t other : {0u, 2u, 3u}) {
    p.vmpl = other;
    const VerifyResult r = verify_report(bytes, guest_gcp_vcek(), p, testing::at_2026());
    EXPECT_EQ(r.failed_step, "vmpl_mismatch") << other;
    EXPECT_NE(r.message.find("VMPL is 1"), std::string::npos) << r.message;
  }
}

TEST(GuestVmpl, SignedReportAtVmpl0) {
  const LeafSpec spec = guest_spec();
  const LocalAmdChain chain(spec);
  Report report = guest_report(spec);
  Policy p;
  p.vmpl = 0;
  EXPECT_TRUE(guest_verify(chain, report, p).accepted);
  report.vmpl = 2;
  EXPECT_EQ(guest_verify(chain, report, p).failed_step, "vmpl_mismatch");
}

// ---- Minimum TCB ----

TEST(GuestMinimumTcb, RealReportMeetsTheDefaultTable) {
  Policy p;
  p.default_minimum_tcb = true;
  VerifyDetails details;
  const VerifyResult r = verify_report(testing::real_report(), guest_gcp_vcek(), p, testing::at_2026(), nullptr, &details);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(details.minimum_source, MinimumTcbSource::kDefaultTable);
  ASSERT_TRUE(details.minimum_tcb);
  EXPECT_EQ(*details.minimum_tcb, default_minimum_tcb(AmdProduct::kMilan));
  EXPECT_TRUE(tcb_at_least(parse_report(testing::real_report()).reported(), *details.minimum_tcb));
}

TEST(GuestMinimumTcb, DefaultTableRefusesAnOlderMilanTcb) {
  LeafSpec spec = guest_spec();
  spec.tcb = TcbVersion{0, 4, 0, 26, 222};  // one SNP SPL below the Milan entry
  const LocalAmdChain chain(spec);
  Policy p;
  p.default_minimum_tcb = true;
  VerifyDetails details;
  const VerifyResult r = guest_verify(chain, guest_report(spec), p, &details);
  EXPECT_EQ(r.failed_step, "tcb_out_of_date");
  EXPECT_NE(r.message.find("default minimum"), std::string::npos) << r.message;
  EXPECT_EQ(details.minimum_source, MinimumTcbSource::kDefaultTable);
  // A minimum given by the client replaces the table's entry.
  p.minimum_tcb = spec.tcb;
  const VerifyResult given = guest_verify(chain, guest_report(spec), p, &details);
  EXPECT_TRUE(given.accepted) << given.failed_step << ": " << given.message;
  EXPECT_EQ(details.minimum_source, MinimumTcbSource::kGiven);
  // Without the default (library callers that ask for none), nothing is compared.
  EXPECT_TRUE(guest_verify(chain, guest_report(spec), {}, &details).accepted);
  EXPECT_EQ(details.minimum_source, MinimumTcbSource::kNone);
  EXPECT_FALSE(details.minimum_tcb);
}

TEST(GuestMinimumTcb, GivenMinimumAboveTheReportIsOutOfDate) {
  const LeafSpec spec = guest_spec();
  const LocalAmdChain chain(spec);
  Policy p;
  p.minimum_tcb = spec.tcb;
  p.minimum_tcb->boot_loader += 1;
  EXPECT_EQ(guest_verify(chain, guest_report(spec), p).failed_step, "tcb_out_of_date");
}

TEST(GuestMinimumTcb, ProductWithoutATableEntryNeedsAGivenMinimum) {
  const LeafSpec spec = guest_spec("Genoa");
  const LocalAmdChain chain(spec);
  const Report report = guest_report(spec, 0x11);
  Policy p;
  p.default_minimum_tcb = true;
  const VerifyResult r = guest_verify(chain, report, p);
  EXPECT_EQ(r.failed_step, "minimum_tcb_unknown");
  EXPECT_NE(r.message.find("Genoa"), std::string::npos) << r.message;
  p.minimum_tcb = spec.tcb;
  EXPECT_TRUE(guest_verify(chain, report, p).accepted);
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp

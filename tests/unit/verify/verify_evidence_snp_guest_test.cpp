// verify_evidence on the real GCP report: what the Report says about the guest (product, VMPL and its
// warning, the minimum TCB applied and its source) and the SEV-SNP guest options (snp_vmpl,
// snp_default_minimum_tcb) with their usage errors.
#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "a3s/power/verify.h"
#include "test_files.h"

namespace a3s::power::verify {
namespace {

constexpr std::time_t kGuest20260101 = 1767225600;  // inside the GCP VCEK's validity

EvidenceOptions guest_snp_options() {
  EvidenceOptions o;
  o.vcek = read_attestation_text("sev-snp/sev-gcp-vcek.pem");
  o.at = kGuest20260101;
  return o;
}

std::vector<uint8_t> guest_gcp_report() {
  return read_attestation("sev-snp/sev-gcp-reportdata.bin");
}

TEST(VerifyEvidenceSnpGuest, ReportNamesProductVmplAndTheDefaultMinimum) {
  const Report r = verify_evidence(guest_gcp_report(), guest_snp_options());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.product, "Milan");
  EXPECT_EQ(r.vmpl, 1u);
  EXPECT_EQ(r.minimum_tcb_source, "default");
  EXPECT_EQ(r.minimum_tcb, "bl=4 tee=0 snp=27 ucode=222");
  EXPECT_EQ(r.minimum_tcb_date, "2026-12-02");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("VMPL 1"), std::string::npos) << r.warnings[0];
}

TEST(VerifyEvidenceSnpGuest, GivenMinimumAndNoMinimum) {
  EvidenceOptions o = guest_snp_options();
  o.snp_minimum_tcb = SnpTcb{0, 4, 0, 27, 222};
  Report r = verify_evidence(guest_gcp_report(), o);
  EXPECT_TRUE(r.accepted) << r.message;
  EXPECT_EQ(r.minimum_tcb_source, "given");
  EXPECT_TRUE(r.minimum_tcb_date.empty());
  o.snp_minimum_tcb = SnpTcb{0, 4, 0, 28, 222};  // one SNP SPL above the report
  r = verify_evidence(guest_gcp_report(), o);
  EXPECT_EQ(r.failed_step, "tcb_out_of_date");
  EXPECT_EQ(r.tcb_status, "out_of_date");
  o = guest_snp_options();
  o.snp_default_minimum_tcb = false;
  r = verify_evidence(guest_gcp_report(), o);
  EXPECT_TRUE(r.accepted) << r.message;
  EXPECT_EQ(r.minimum_tcb_source, "none");
  EXPECT_TRUE(r.minimum_tcb.empty());
  EXPECT_EQ(r.tcb_status, "endorsed");
}

TEST(VerifyEvidenceSnpGuest, VmplComparedWhenGiven) {
  EvidenceOptions o = guest_snp_options();
  o.snp_vmpl = 1;
  EXPECT_TRUE(verify_evidence(guest_gcp_report(), o).accepted);
  o.snp_vmpl = 0;
  const Report r = verify_evidence(guest_gcp_report(), o);
  EXPECT_EQ(r.failed_step, "vmpl_mismatch");
  EXPECT_EQ(r.vmpl, 1u);  // still shown
  EXPECT_EQ(r.tcb_status, "endorsed");  // the VCEK binding held; the minimum was not reached
}

TEST(VerifyEvidenceSnpGuest, VmplAboveThreeIsInvalidArgument) {
  EvidenceOptions o = guest_snp_options();
  o.snp_vmpl = 4;
  try {
    verify_evidence(guest_gcp_report(), o);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

TEST(VerifyEvidenceSnpGuest, TdxRefusesTheSnpGuestOptions) {
  const auto quote = read_attestation("tdx/tdx-v4-edgeless.dat");
  EvidenceOptions o;
  o.no_tcb_check = true;
  o.snp_vmpl = 0;
  EXPECT_THROW(verify_evidence(quote, o), Error);
  o.snp_vmpl.reset();
  o.snp_allow_migration_agent = true;
  EXPECT_THROW(verify_evidence(quote, o), Error);
}

}  // namespace
}  // namespace a3s::power::verify

// verify_attestation and the SEV-SNP guest options: the simulated server's evidence (VMPL 0, a TCB that
// is no firmware's) is not held to the default minimum TCB table, shows its VMPL, and --vmpl / a given
// minimum still apply to it.
#include <gtest/gtest.h>

#include "a3s/power/verify_attestation.h"
#include "attestation_builder.h"

namespace a3s::power::verify_attestation_testing {
namespace {

class LiveSnpGuest : public ::testing::Test {
 protected:
  tee::SimulatedProvider provider;
  tee::Nonce nonce = test_nonce(7);
  nlohmann::json response = simulated_response(provider, make_claims(nonce));

  verify::AttestationResult run(const verify::AttestationPolicy& policy) const {
    return verify::verify_attestation(response.dump(), nonce, policy);
  }
};

TEST_F(LiveSnpGuest, SimulatedEvidenceHasNoDefaultMinimumAndShowsItsVmpl) {
  const verify::AttestationResult r = run(simulated_policy());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.minimum_tcb_source, "none");
  EXPECT_TRUE(r.minimum_tcb.empty());
  EXPECT_EQ(r.vmpl, 0u);
  EXPECT_TRUE(r.warnings.empty());
}

TEST_F(LiveSnpGuest, VmplAndGivenMinimumApplyToLiveEvidence) {
  verify::AttestationPolicy p = simulated_policy();
  p.snp_vmpl = 0;
  EXPECT_TRUE(run(p).accepted);
  p.snp_vmpl = 1;
  const verify::AttestationResult r = run(p);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "vmpl_mismatch");
  p.snp_vmpl.reset();
  p.snp_minimum_tcb = verify::SnpTcb{0, 255, 0, 0, 0};
  const verify::AttestationResult old = run(p);
  EXPECT_EQ(old.failed_step, "tcb_out_of_date");
  EXPECT_EQ(old.minimum_tcb_source, "given");
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

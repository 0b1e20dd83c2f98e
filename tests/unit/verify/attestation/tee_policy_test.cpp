// The server's signed TEE policy (claims.runtime.tee_policy): required "strict" by default, either one
// with allow_simulated, or the one AttestationPolicy::require_tee_policy names; reported only from the
// signed claims, never from the response's unsigned "policy", which must agree with them.
#include <gtest/gtest.h>

#include <memory>

#include "a3s/power/error.h"
#include "a3s/power/verify_attestation.h"
#include "attestation_builder.h"
#include "attestation/simulated/local_key_hierarchy.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using verify::AttestationPolicy;
using verify::AttestationResult;
namespace snp = verify::sev_snp;

tee::Claims claims_with(const tee::Nonce& nonce, TeePolicy policy) {
  tee::Claims c = make_claims(nonce);
  c.tee_policy = policy;
  return c;
}

// Hardware-style evidence (tee_type "sev-snp") under a local hierarchy trusted with `root`.
class SignedTeePolicy : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < chip_id.size(); ++i) chip_id[i] = static_cast<uint8_t>(0x30 + i);
    snp::LeafSpec leaf;
    leaf.hw_id.assign(chip_id.begin(), chip_id.end());
    hierarchy = std::make_unique<snp::LocalKeyHierarchy>(leaf);
  }

  nlohmann::json hardware_response(TeePolicy policy) const {
    const tee::Claims claims = claims_with(nonce, policy);
    tee::Evidence ev = evidence_under(*hierarchy, chip_id, claims.report_data());
    ev.tee_type = tee::tee_types::kSevSnp;
    ev.simulated = false;
    ev.verifiable_remotely = true;
    return response_for(ev, claims);
  }

  AttestationPolicy hardware_policy() const {
    AttestationPolicy p;
    p.model = kModel;
    p.model_sha256 = model_digest();
    p.root = hierarchy->ark_pem;
    p.snp_minimum_tcb = verify::SnpTcb{.boot_loader = 3, .tee = 0, .snp = 20, .microcode = 209};
    return p;
  }

  AttestationResult verify(const nlohmann::json& response, const AttestationPolicy& p) const {
    return verify::verify_attestation(response.dump(), nonce, p);
  }

  snp::ChipId chip_id{};
  std::unique_ptr<snp::LocalKeyHierarchy> hierarchy;
  tee::Nonce nonce = test_nonce(71);
};

TEST_F(SignedTeePolicy, StrictClaimIsAcceptedByDefaultAndReported) {
  const AttestationResult r = verify(hardware_response(TeePolicy::kStrict), hardware_policy());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.tee_policy, "strict");
  bool checked = false;
  for (const auto& c : r.checks) checked = checked || (c.name == "policy" && c.passed);
  EXPECT_TRUE(checked);
}

TEST_F(SignedTeePolicy, DevelopmentClaimIsRejectedWhenStrictIsRequired) {
  const nlohmann::json response = hardware_response(TeePolicy::kDevelopment);
  AttestationResult r = verify(response, hardware_policy());  // default: strict
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "policy_mismatch") << r.message;
  EXPECT_EQ(r.checks.back().name, "policy");
  AttestationPolicy strict = hardware_policy();
  strict.require_tee_policy = "strict";
  EXPECT_EQ(verify(response, strict).failed_step, "policy_mismatch");
  // Asked for, a development server is accepted, and says so.
  AttestationPolicy development = hardware_policy();
  development.require_tee_policy = "development";
  r = verify(response, development);
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.tee_policy, "development");
  EXPECT_EQ(verify(hardware_response(TeePolicy::kStrict), development).failed_step, "policy_mismatch");
}

TEST_F(SignedTeePolicy, AllowSimulatedAcceptsEitherPolicyUnlessOneIsRequired) {
  tee::SimulatedProvider provider;
  for (TeePolicy policy : {TeePolicy::kStrict, TeePolicy::kDevelopment}) {
    const nlohmann::json response = simulated_response(provider, claims_with(nonce, policy));
    const AttestationResult r = verify(response, simulated_policy());
    ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
    EXPECT_EQ(r.tee_policy, to_string(policy));
  }
  AttestationPolicy strict = simulated_policy();
  strict.require_tee_policy = "strict";
  EXPECT_EQ(verify(simulated_response(provider, claims_with(nonce, TeePolicy::kDevelopment)), strict).failed_step,
            "policy_mismatch");
}

// The unsigned top-level "policy" rewritten: rejected, never printed as the server's policy.
TEST_F(SignedTeePolicy, UnsignedPolicyThatDisagreesWithTheClaimIsMalformed) {
  nlohmann::json response = hardware_response(TeePolicy::kDevelopment);
  response["policy"] = "strict";
  AttestationPolicy development = hardware_policy();
  development.require_tee_policy = "development";
  const AttestationResult r = verify(response, development);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "malformed_response");
  EXPECT_NE(r.message.find("claims.runtime.tee_policy"), std::string::npos) << r.message;
  EXPECT_EQ(r.tee_policy, "");
  // With strict required, it is still not accepted as strict.
  EXPECT_FALSE(verify(response, hardware_policy()).accepted);
}

// A rewritten signed claim breaks the claims digest.
TEST_F(SignedTeePolicy, RewrittenClaimBreaksTheDigest) {
  nlohmann::json response = hardware_response(TeePolicy::kDevelopment);
  response["policy"] = "strict";
  response["claims"]["runtime"]["tee_policy"] = "strict";
  EXPECT_EQ(verify(response, hardware_policy()).failed_step, "claims_digest_mismatch");
}

TEST_F(SignedTeePolicy, ClaimsWithoutAKnownPolicyAreMalformed) {
  for (const char* edit : {"missing", "lenient", "number"}) {
    nlohmann::json response = hardware_response(TeePolicy::kStrict);
    if (std::string(edit) == "missing") response["claims"]["runtime"].erase("tee_policy");
    else if (std::string(edit) == "lenient") response["claims"]["runtime"]["tee_policy"] = "lenient";
    else response["claims"]["runtime"]["tee_policy"] = 1;
    EXPECT_EQ(verify(response, hardware_policy()).failed_step, "malformed_response") << edit;
  }
}

TEST_F(SignedTeePolicy, UnknownRequiredPolicyIsAnInvalidArgument) {
  AttestationPolicy p = hardware_policy();
  p.require_tee_policy = "lenient";
  EXPECT_THROW(verify(hardware_response(TeePolicy::kStrict), p), Error);
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

// verify_attestation on genuine responses: what is accepted, and the policy decisions (simulated
// evidence, model name and digest, measurements, evidence kinds).
#include "a3s/power/verify_attestation.h"

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <iterator>

#include "a3s/power/error.h"
#include "attestation_builder.h"
#include "base/hex.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using verify::AttestationPolicy;
using verify::AttestationResult;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

AttestationResult verify_json(const nlohmann::json& response, const tee::Nonce& nonce,
                              const AttestationPolicy& policy) {
  return verify::verify_attestation(response.dump(), nonce, policy);
}

class LiveAttestation : public ::testing::Test {
 protected:
  tee::SimulatedProvider provider;
  tee::Nonce nonce = test_nonce(1);
  nlohmann::json response = simulated_response(provider, make_claims(nonce));
};

TEST_F(LiveAttestation, SimulatedEvidenceIsAcceptedWhenAllowed) {
  const AttestationResult r = verify_json(response, nonce, simulated_policy());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_TRUE(r.failed_step.empty());
  EXPECT_TRUE(r.simulated);
  EXPECT_EQ(r.tee_type, "simulated");
  EXPECT_EQ(r.evidence_format, "sev-snp-report");
  EXPECT_EQ(r.model, kModel);
  EXPECT_EQ(r.model_sha256, to_hex(model_digest()));
  EXPECT_EQ(r.nonce, to_hex(nonce));
  EXPECT_EQ(r.measurement, to_hex(tee::SimulatedProvider::measurement()));
  EXPECT_EQ(r.report_data, response["report_data"]);
  EXPECT_EQ(r.tcb_status, "endorsed");
  std::vector<std::string> names;
  for (const auto& c : r.checks) {
    EXPECT_TRUE(c.passed) << c.name;
    names.push_back(c.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"response", "claims_schema", "nonce", "claims_digest", "config", "model",
                                             "model_hash", "evidence_kind", "policy", "report_data", "endorsements",
                                             "evidence", "measurement"}));
}

TEST_F(LiveAttestation, SimulatedEvidenceIsRejectedByDefault) {
  AttestationPolicy p = simulated_policy();
  p.allow_simulated = false;
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "simulated_evidence");
  EXPECT_TRUE(r.simulated);
  ASSERT_FALSE(r.checks.empty());
  EXPECT_FALSE(r.checks.back().passed);
  EXPECT_EQ(r.checks.back().name, "evidence_kind");
}

TEST_F(LiveAttestation, WrongExpectedModelHash) {
  AttestationPolicy p = simulated_policy();
  p.model_sha256[0] ^= 1;
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_EQ(r.failed_step, "model_hash_mismatch");
  EXPECT_FALSE(r.accepted);
}

TEST_F(LiveAttestation, OtherModelName) {
  AttestationPolicy p = simulated_policy();
  p.model = "another-model";
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_EQ(r.failed_step, "model_mismatch");
}

TEST_F(LiveAttestation, ExpectedMeasurementPolicy) {
  AttestationPolicy p = simulated_policy();
  verify::Measurement other{};
  other.fill(0x11);
  p.expected_measurements = {other, tee::SimulatedProvider::measurement()};
  EXPECT_TRUE(verify_json(response, nonce, p).accepted);
  p.expected_measurements = {other};
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_EQ(r.failed_step, "measurement_mismatch");
  EXPECT_EQ(r.checks.back().name, "measurement");
}

TEST_F(LiveAttestation, ResponseMeasurementMustBeTheEvidences) {
  response["measurement"] = std::string(96, 'a');
  const AttestationResult r = verify_json(response, nonce, simulated_policy());
  EXPECT_EQ(r.failed_step, "measurement_mismatch");
}

TEST_F(LiveAttestation, TdReportIsNotVerifiable) {
  response["tee_type"] = "tdx";
  response["evidence_format"] = "tdx-tdreport";
  EXPECT_EQ(verify_json(response, nonce, simulated_policy()).failed_step, "not_verifiable");
}

TEST_F(LiveAttestation, HardwareEvidenceMarkedUnverifiable) {
  response["tee_type"] = "sev-snp";
  response["verifiable"] = false;
  EXPECT_EQ(verify_json(response, nonce, simulated_policy()).failed_step, "not_verifiable");
}

// Simulated evidence presented as hardware: its root is not AMD's, and a response never brings its
// own root for hardware evidence. Its chain gives it away: the result says simulated.
TEST_F(LiveAttestation, SimulatedEvidenceClaimingHardwareFailsTheChain) {
  response["tee_type"] = "sev-snp";
  response["verifiable"] = true;
  const AttestationResult r = verify_json(response, nonce, simulated_policy());
  EXPECT_EQ(r.failed_step, "chain_invalid") << r.message;
  EXPECT_TRUE(r.simulated);
}

TEST_F(LiveAttestation, HardwareEvidenceWithoutCertificatesFailsClosed) {
  response["tee_type"] = "sev-snp";
  response["verifiable"] = true;
  response["certificates"] = nullptr;
  const AttestationResult r = verify_json(response, nonce, simulated_policy());
  EXPECT_EQ(r.failed_step, "certificate_missing");
  EXPECT_NE(r.message.find("--vcek"), std::string::npos) << r.message;
}

TEST_F(LiveAttestation, HardwareEvidenceWithTheClientsVcekStillNeedsAnAmdRoot) {
  response["tee_type"] = "sev-snp";
  response["verifiable"] = true;
  response["certificates"] = nullptr;
  AttestationPolicy p = simulated_policy();
  p.vcek = provider.vcek_pem();
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_EQ(r.failed_step, "chain_invalid") << r.message;  // the simulated VCEK does not chain to AMD
  EXPECT_EQ(r.checks.back().name, "evidence");
}

TEST_F(LiveAttestation, SimulatedEvidenceWithTheClientsVcekUsesIt) {
  AttestationPolicy p = simulated_policy();
  p.vcek = read_text(std::string(A3S_TESTDATA_DIR) + "/attestation/sev-snp/sev-gcp-vcek.pem");
  ASSERT_FALSE(p.vcek.empty());
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.checks.back().name, "evidence") << r.failed_step << ": " << r.message;
}

TEST_F(LiveAttestation, SimulatedEvidenceWithTheClientsRootUsesIt) {
  const verify::sev_snp::LocalKeyHierarchy other{verify::sev_snp::LeafSpec{}};
  AttestationPolicy p = simulated_policy();
  p.root = other.ark_pem;
  const AttestationResult r = verify_json(response, nonce, p);
  EXPECT_EQ(r.failed_step, "chain_invalid") << r.message;
  p.root = provider.root_pem();  // the simulated root itself
  EXPECT_TRUE(verify_json(response, nonce, p).accepted);
}

TEST_F(LiveAttestation, SimulatedWithoutCertificateTable) {
  response["certificates"] = nullptr;
  EXPECT_EQ(verify_json(response, nonce, simulated_policy()).failed_step, "certificate_missing");
}

TEST_F(LiveAttestation, UnknownClaimsSchema) {
  tee::Claims c = make_claims(nonce);
  nlohmann::json claims = c.to_json();
  claims["schema"] = "a3s-power.claims.v2";
  response["claims"] = claims;
  EXPECT_EQ(verify_json(response, nonce, simulated_policy()).failed_step, "unsupported_claims_schema");
}

TEST(LiveAttestationPolicy, EmptyModelNameIsAnError) {
  AttestationPolicy p = simulated_policy();
  p.model.clear();
  try {
    verify::verify_attestation("{}", test_nonce(1), p);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
}

TEST_F(LiveAttestation, TimeOutsideRangeIsAnError) {
  AttestationPolicy p = simulated_policy();
  p.at = -1;
  try {
    verify_json(response, nonce, p);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
}

TEST_F(LiveAttestation, VerifiesAtAGivenTime) {
  AttestationPolicy p = simulated_policy();
  p.at = std::time(nullptr) + 3600;  // the simulated certificates are valid for years around now
  EXPECT_TRUE(verify_json(response, nonce, p).accepted);
  p.at = std::time(nullptr) - 2 * 366 * 24 * 3600;  // before their notBefore
  EXPECT_EQ(verify_json(response, nonce, p).failed_step, "collateral_expired");
}

TEST(LiveAttestationPolicy, SimulatedLabelIsTheProviders) {
  EXPECT_STREQ(verify::kSimulatedOrganization, tee::kSimulatedLabel);
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

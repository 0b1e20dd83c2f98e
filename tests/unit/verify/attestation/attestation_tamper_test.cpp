// verify_attestation against a hostile server: replayed evidence, claims edited after signing,
// tampered report bytes, and certificate tables that try to bring their own root.
#include <gtest/gtest.h>

#include "a3s/power/verify_attestation.h"
#include "attestation_builder.h"
#include "attestation/sev_snp/cert_table.h"
#include "base/hex.h"

namespace a3s::power::verify_attestation_testing {
namespace {

namespace snp = verify::sev_snp;
using verify::AttestationPolicy;
using verify::AttestationResult;

std::string step_of(const nlohmann::json& response, const tee::Nonce& nonce) {
  const AttestationResult r = verify::verify_attestation(response.dump(), nonce, simulated_policy());
  EXPECT_FALSE(r.accepted);
  return r.failed_step;
}

class Tamper : public ::testing::Test {
 protected:
  tee::SimulatedProvider provider;
  tee::Nonce nonce = test_nonce(7);
  tee::Claims claims = make_claims(nonce);
  nlohmann::json response = simulated_response(provider, claims);
};

// A response made for an earlier request, presented to a client that sent a new nonce.
TEST_F(Tamper, ReplayedEvidenceFailsTheNonce) {
  EXPECT_EQ(step_of(response, test_nonce(8)), "nonce_mismatch");
}

// The replay with claims.nonce rewritten to the new nonce: report_data still holds the old one.
TEST_F(Tamper, ReplayWithRewrittenClaimsNonce) {
  const tee::Nonce fresh = test_nonce(8);
  response["claims"]["nonce"] = to_hex(fresh);
  EXPECT_EQ(step_of(response, fresh), "nonce_mismatch");
}

// The replay with the whole JSON rewritten consistently: only the signed evidence still holds the
// old report_data.
TEST_F(Tamper, ReplayWithRewrittenJsonIsCaughtByTheEvidence) {
  const tee::Nonce fresh = test_nonce(8);
  tee::Claims forged = claims;
  forged.nonce = fresh;
  response["claims"] = forged.to_json();
  response["claims_sha256"] = to_hex(forged.digest());
  response["report_data"] = to_hex(forged.report_data());
  EXPECT_EQ(step_of(response, fresh), "report_data_mismatch");
}

TEST_F(Tamper, ClaimsEditedAfterSigning) {
  response["claims"]["model"]["signature"] = "verified";
  EXPECT_EQ(step_of(response, nonce), "claims_digest_mismatch");
}

TEST_F(Tamper, ModelDigestEditedAfterSigning) {
  // A server swapping in the digest the client expects, for a model it does not serve.
  tee::Claims served = claims;
  served.model_sha256.fill(0x99);
  response = simulated_response(provider, served);
  response["claims"]["model"]["sha256"] = to_hex(model_digest());
  EXPECT_EQ(step_of(response, nonce), "claims_digest_mismatch");
}

TEST_F(Tamper, ClaimsSha256Inconsistent) {
  std::string digest = response["claims_sha256"];
  digest[0] = digest[0] == '0' ? '1' : '0';
  response["claims_sha256"] = digest;
  EXPECT_EQ(step_of(response, nonce), "claims_digest_mismatch");
}

// The published configuration is checked against the signed claims.runtime.config_sha256.
TEST_F(Tamper, PublishedConfigEditedAfterSigning) {
  response["config"]["tee_mode"] = false;
  EXPECT_EQ(step_of(response, nonce), "config_digest_mismatch");
  response["config"] = test_config();
  response["config"]["queue_timeout_seconds"] = 2.50000001;
  EXPECT_EQ(step_of(response, nonce), "config_digest_mismatch");
  response["config"] = test_config();
  response["config"]["port"] = int64_t{1} << 60;  // no exact canonical form
  EXPECT_EQ(step_of(response, nonce), "malformed_response");
}

TEST_F(Tamper, ExtraClaimMemberChangesTheDigest) {
  response["claims"]["runtime"]["debug"] = "on";
  EXPECT_EQ(step_of(response, nonce), "claims_digest_mismatch");
}

TEST_F(Tamper, EvidenceForOtherReportData) {
  tee::ReportData other = claims.report_data();
  other[63] ^= 1;
  response = response_for(provider.get_evidence(other), claims);
  EXPECT_EQ(step_of(response, nonce), "report_data_mismatch");
}

TEST_F(Tamper, ReportBytesTampered) {
  tee::Evidence ev = provider.get_evidence(claims.report_data());
  ev.raw[0x20] ^= 0x01;  // FAMILY_ID, inside the signed region
  EXPECT_EQ(step_of(response_for(ev, claims), nonce), "signature_invalid");
  ev = provider.get_evidence(claims.report_data());
  ev.raw[snp::kSignatureOffset + 5] ^= 0x80;  // signature R
  EXPECT_EQ(step_of(response_for(ev, claims), nonce), "signature_invalid");
}

TEST_F(Tamper, TruncatedReport) {
  tee::Evidence ev = provider.get_evidence(claims.report_data());
  ev.raw.resize(ev.raw.size() - 1);
  nlohmann::json r = response_for(provider.get_evidence(claims.report_data()), claims);
  r["report"] = crypto::base64_encode(ev.raw);
  EXPECT_EQ(step_of(r, nonce), "malformed_evidence");
}

// A hierarchy with the same layout but not labelled simulated: with --allow-simulated the response
// still cannot make the client trust its root.
TEST_F(Tamper, UnlabelledRootIsNotTrusted) {
  snp::ChipId chip{};
  chip.fill(0x5A);
  snp::LeafSpec leaf;
  leaf.hw_id.assign(chip.begin(), chip.end());
  const snp::LocalKeyHierarchy foreign(leaf);  // O = "Local Test AMD"
  response = response_for(evidence_under(foreign, chip, claims.report_data()), claims);
  const AttestationResult r = verify::verify_attestation(response.dump(), nonce, simulated_policy());
  EXPECT_EQ(r.failed_step, "chain_invalid");
  EXPECT_NE(r.message.find("not labelled"), std::string::npos) << r.message;
}

// Labelled simulated, but not self-signed: an ARK issued by another key.
TEST_F(Tamper, LabelledButNotSelfSignedRoot) {
  const snp::LocalKeyHierarchy other(
      snp::LeafSpec{}, {verify::kSimulatedOrganization, std::string(verify::kSimulatedOrganization) + " ARK",
                        std::string(verify::kSimulatedOrganization) + " ASK"});
  tee::Evidence ev = provider.get_evidence(claims.report_data());
  std::string error;
  auto table = snp::parse_cert_table(ev.certificates, error);
  ASSERT_TRUE(table) << error;
  table->ark.assign(other.ask_der.begin(), other.ask_der.end());  // issuer ≠ subject
  ev.certificates = snp::serialize_cert_table(*table);
  EXPECT_EQ(step_of(response_for(ev, claims), nonce), "chain_invalid");
}

// A genuine simulated root with a VCEK and ASK from another (also simulated-looking) hierarchy.
TEST_F(Tamper, VcekFromAnotherHierarchy) {
  tee::SimulatedProvider other;
  const tee::Evidence foreign = other.get_evidence(claims.report_data());
  tee::Evidence ev = provider.get_evidence(claims.report_data());
  std::string error;
  auto mine = snp::parse_cert_table(ev.certificates, error);
  auto theirs = snp::parse_cert_table(foreign.certificates, error);
  ASSERT_TRUE(mine && theirs) << error;
  mine->ark = theirs->ark;  // a valid self-signed simulated root that did not issue this ASK
  ev.certificates = snp::serialize_cert_table(*mine);
  EXPECT_EQ(step_of(response_for(ev, claims), nonce), "chain_invalid");
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

// The server's attestation service on simulated evidence: report_data binds the client's nonce and the
// SHA-256 of the canonical claims, the claims carry the measured model digests, and every failure is
// a clear error (unmeasured model, strict policy without hardware, a platform returning other
// report_data).
#include <gtest/gtest.h>

#include <filesystem>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "crypto/base64.h"
#include "crypto/sha256.h"
#include "server/attestation.h"
#include "base/canonical_json.h"
#include "tee/simulated_provider.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::server {
namespace {

config::Config development_config() {
  config::Config c;
  c.tee_mode = true;
  c.tee_policy = TeePolicy::kDevelopment;
  c.tee_device_root = "/nonexistent-tee-root";
  return c;
}

runtime::ModelDescription measured_model() {
  runtime::ModelDescription d;
  d.name = "stories";
  d.sha256 = std::string(64, 'a');
  return d;
}

tee::Nonce nonce_of(uint8_t seed) {
  tee::Nonce n{};
  for (size_t i = 0; i < n.size(); ++i) n[i] = static_cast<uint8_t>(seed + i);
  return n;
}

crypto::Sha256Digest sha_of(const std::string& s) {
  return crypto::sha256({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

TEST(Attestor, DevelopmentPolicyWithoutHardwareUsesSimulatedEvidence) {
  Attestor a(development_config());
  EXPECT_EQ(a.tee_type(), "simulated");
  EXPECT_EQ(a.provider_name(), "simulated");
  EXPECT_FALSE(a.verifiable());
  EXPECT_EQ(a.policy(), TeePolicy::kDevelopment);
}

TEST(Attestor, StrictPolicyWithoutHardwareRefusesToStart) {
  config::Config c = development_config();
  c.tee_policy = TeePolicy::kStrict;
  try {
    Attestor a(c);
    FAIL() << "a strict attestor started without attestation hardware";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "tee_unavailable");
  }
}

TEST(Attestor, ReportDataIsNonceAndClaimsDigest) {
  Attestor a(development_config());
  const tee::Nonce nonce = nonce_of(3);
  runtime::ModelDescription m = measured_model();
  m.encrypted_sha256 = std::string(64, 'b');
  const nlohmann::json j = a.attest(nonce, m);

  ASSERT_TRUE(j["claims"].is_object());
  const std::string canonical = canonical_json(j["claims"]);
  const crypto::Sha256Digest claims_digest = sha_of(canonical);
  EXPECT_EQ(j["claims_sha256"], to_hex(claims_digest));
  EXPECT_EQ(j["report_data"], to_hex(nonce) + to_hex(claims_digest));
  EXPECT_EQ(j["claims"]["nonce"], to_hex(nonce));
  EXPECT_EQ(j["claims"]["schema"], "a3s-power.claims.v1");
  EXPECT_EQ(j["claims"]["model"]["name"], "stories");
  EXPECT_EQ(j["claims"]["model"]["sha256"], m.sha256);
  EXPECT_EQ(j["claims"]["model"]["encrypted_sha256"], m.encrypted_sha256);
  EXPECT_EQ(j["claims"]["model"]["signature"], "absent");
  EXPECT_EQ(j["claims"]["runtime"]["tee_policy"], "development");
  EXPECT_EQ(j["claims"]["runtime"]["config_sha256"], to_hex(a.config_sha256()));
  EXPECT_FALSE(j["claims"].contains("tls"));

  // The evidence itself carries the same report_data.
  const auto raw = crypto::base64_decode(j["report"].get<std::string>());
  ASSERT_TRUE(raw.has_value());
  const auto report = verify::sev_snp::parse_report(*raw);
  EXPECT_EQ(to_hex(report.report_data), j["report_data"]);
  EXPECT_EQ(j["measurement"], to_hex(tee::SimulatedProvider::measurement()));
  EXPECT_EQ(j["tee_type"], "simulated");
  EXPECT_EQ(j["evidence_format"], "sev-snp-report");
  EXPECT_EQ(j["policy"], "development");
  EXPECT_FALSE(j["verifiable"].get<bool>());
  EXPECT_TRUE(j["certificates"].is_string());
  EXPECT_EQ(j["generated_at"].get<std::string>().size(), 20u);
}

TEST(Attestor, EachNonceGetsItsOwnEvidence) {
  Attestor a(development_config());
  const nlohmann::json x = a.attest(nonce_of(1), measured_model());
  const nlohmann::json y = a.attest(nonce_of(2), measured_model());
  EXPECT_NE(x["report"], y["report"]);
  EXPECT_NE(x["report_data"], y["report_data"]);
  EXPECT_NE(x["claims_sha256"], y["claims_sha256"]);
}

TEST(Attestor, SignatureStatusAndConfigDigestEnterTheClaims) {
  config::Config c = development_config();
  Attestor a(c);
  c.max_queue = 7;  // another configuration → another digest
  Attestor b(c);
  EXPECT_NE(a.config_sha256(), b.config_sha256());
  runtime::ModelDescription m = measured_model();
  m.signature = "verified";
  EXPECT_EQ(a.attest(nonce_of(0), m)["claims"]["model"]["signature"], "verified");
}

TEST(Attestor, AnUnmeasuredModelIsNotAttested) {
  Attestor a(development_config());
  runtime::ModelDescription m = measured_model();
  m.sha256.clear();
  try {
    a.attest(nonce_of(0), m);
    FAIL() << "an unmeasured model was attested";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "attestation_failed");
  }
}

// A platform whose evidence does not carry the requested report_data (a replay, a confused device).
class ReplayingProvider final : public tee::EvidenceProvider {
 public:
  std::string name() const override { return "replaying"; }
  tee::Evidence get_evidence(const tee::ReportData&) override {
    return inner_.get_evidence(tee::ReportData{});  // always the evidence of an all-zero report_data
  }

 private:
  tee::SimulatedProvider inner_;
};

TEST(Attestor, EvidenceWithOtherReportDataIsRefused) {
  Attestor a(development_config(), std::make_unique<ReplayingProvider>());  // the all-zero self-test passes
  try {
    a.attest(nonce_of(9), measured_model());
    FAIL() << "evidence for another report_data was returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "attestation_failed");
  }
}

}  // namespace
}  // namespace a3s::power::server

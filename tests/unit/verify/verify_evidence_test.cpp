#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "a3s/power/verify.h"
#include "base/hex.h"
#include "test_files.h"

namespace a3s::power::verify {
namespace {

constexpr std::time_t k20250901 = 1756684800;  // 2025-09-01T00:00:00Z
constexpr std::time_t k20260101 = 1767225600;  // 2026-01-01T00:00:00Z (inside the GCP VCEK's validity)

EvidenceOptions snp_options() {
  EvidenceOptions o;
  o.vcek = read_attestation_text("sev-snp/sev-gcp-vcek.pem");
  o.at = k20260101;
  return o;
}

Measurement measurement_of(const std::string& hex) {
  Measurement m{};
  for (size_t i = 0; i < m.size(); ++i) m[i] = uint8_t(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return m;
}

TEST(VerifyEvidence, SnpAccepted) {
  const Report r = verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), snp_options());
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(r.tee_type, TeeType::kSevSnp);
  EXPECT_EQ(r.measurement.size(), 96u);
  EXPECT_EQ(r.report_data.size(), 128u);
  EXPECT_EQ(r.tcb_status, "meets_minimum");  // the default minimum TCB (Milan)
  EXPECT_EQ(r.skipped, std::vector<std::string>{"crl"});
}

TEST(VerifyEvidence, SnpMeasurementListIsAnyOf) {
  const auto report = read_attestation("sev-snp/sev-gcp-reportdata.bin");
  EvidenceOptions o = snp_options();
  o.expected_measurements = {Measurement{}};
  Report r = verify_evidence(report, o);
  EXPECT_EQ(r.failed_step, "measurement_mismatch");
  o.expected_measurements.push_back(measurement_of(r.measurement));
  r = verify_evidence(report, o);
  EXPECT_TRUE(r.accepted) << r.message;
}

TEST(VerifyEvidence, SnpMinimumTcb) {
  EvidenceOptions o = snp_options();
  o.snp_minimum_tcb = SnpTcb{0, 255, 255, 255, 255};
  const Report r = verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o);
  EXPECT_EQ(r.failed_step, "tcb_out_of_date");
  EXPECT_EQ(r.tcb_status, "out_of_date");
  o.snp_minimum_tcb = SnpTcb{};
  EXPECT_EQ(verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o).tcb_status,
            "meets_minimum");
}

TEST(VerifyEvidence, SnpRefusesCollateralDirectory) {
  EvidenceOptions o = snp_options();
  o.collateral_dir = attestation_path("tdx");
  try {
    verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o);
    FAIL() << "expected invalid_argument";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

TEST(VerifyEvidence, TdxWithoutCollateralFailsClosed) {
  EvidenceOptions o;
  o.at = k20250901;
  const auto quote = read_attestation("tdx/tdx-v4-edgeless.dat");
  Report r = verify_evidence(quote, o);
  EXPECT_EQ(r.failed_step, "collateral_missing");
  EXPECT_EQ(r.tcb_status, "unknown");
  o.no_tcb_check = true;
  r = verify_evidence(quote, o);
  EXPECT_TRUE(r.accepted) << r.message;
  EXPECT_EQ(r.tcb_status, "not_checked");
  EXPECT_EQ(r.skipped, (std::vector<std::string>{"tcb", "crl"}));
}

TEST(VerifyEvidence, TdxReportCarriesEveryRegisterAndAppliesTheTdxPolicy) {
  EvidenceOptions o;
  o.at = k20250901;
  o.no_tcb_check = true;
  const auto quote = read_attestation("tdx/tdx-v4-edgeless.dat");
  Report r = verify_evidence(quote, o);
  ASSERT_TRUE(r.accepted) << r.message;
  ASSERT_TRUE(r.tdx.has_value());
  EXPECT_EQ(r.tdx->mr_td, r.measurement);
  EXPECT_EQ(r.tdx->mr_config_id, std::string(96, '0'));
  EXPECT_EQ(r.tdx->mr_owner, std::string(96, '0'));
  EXPECT_EQ(r.tdx->mr_owner_config, std::string(96, '0'));
  EXPECT_EQ(r.tdx->rtmr[0].substr(0, 16), "e1af75e61927410e");
  Measurement rtmr1{};
  ASSERT_TRUE(a3s::power::decode_hex(r.tdx->rtmr[1], rtmr1));
  o.tdx.expected_rtmr[1] = {rtmr1};
  EXPECT_TRUE(verify_evidence(quote, o).accepted);
  rtmr1[10] ^= 0x20;
  o.tdx.expected_rtmr[1] = {rtmr1};
  r = verify_evidence(quote, o);
  EXPECT_EQ(r.failed_step, "measurement_mismatch");
  EXPECT_NE(r.message.find("RTMR1"), std::string::npos) << r.message;
}

TEST(VerifyEvidence, TdxPolicyIsInvalidForSevSnp) {
  EvidenceOptions o;
  o.vcek = read_attestation_text("sev-snp/sev-gcp-vcek.pem");
  o.tdx.expected_mr_owner = Measurement{};
  EXPECT_THROW(verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o), Error);
  o.tdx = {};
  const Report r = verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o);
  EXPECT_FALSE(r.tdx.has_value());
}

TEST(VerifyEvidence, TdxRefusesSnpOptions) {
  EvidenceOptions o;
  o.vcek = "x";
  EXPECT_THROW(verify_evidence(read_attestation("tdx/tdx-v4-edgeless.dat"), o), Error);
  o.vcek.clear();
  o.snp_minimum_tcb = SnpTcb{};
  EXPECT_THROW(verify_evidence(read_attestation("tdx/tdx-v4-edgeless.dat"), o), Error);
}

TEST(VerifyEvidence, TdxUnreadableCollateralIsAnIoError) {
  EvidenceOptions o;
  o.collateral_dir = "/nonexistent/collateral";
  try {
    verify_evidence(read_attestation("tdx/tdx-v4-edgeless.dat"), o);
    FAIL() << "expected io_error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "io_error");
  }
}

TEST(VerifyEvidence, UnknownBytesAreMalformedEvidence) {
  const Report r = verify_evidence(std::vector<uint8_t>(100, 0xAB), {});
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.tee_type, TeeType::kUnknown);
  EXPECT_EQ(r.failed_step, "malformed_evidence");
  EXPECT_TRUE(r.measurement.empty());
  EXPECT_EQ(r.message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace a3s::power::verify

namespace a3s::power::verify {
namespace {

// Intel's sample quote with its PCK chain files and sample root, verified at 2025-09-01.
EvidenceOptions sample_tdx_options() {
  EvidenceOptions o;
  o.cert_chain = read_attestation_text("tdx/pckCert.pem") + read_attestation_text("tdx/pckSignChain.pem");
  o.root = read_attestation_text("tdx/trustedRootCaCert.pem");
  o.at = 1756684800;  // 2025-09-01T00:00:00Z
  return o;
}

TdxCollateralData sample_collateral_in_memory() {
  return {read_attestation_text("tdx/tcbInfo.json"), read_attestation_text("tdx/qeIdentity.json"),
          read_attestation_text("tdx/tcbSignChain.pem"), read_attestation_text("tdx/rootCaCrl.der"),
          read_attestation_text("tdx/intermediateCaCrl.der")};
}

TEST(VerifyEvidence, TdxCollateralInMemoryEqualsTheDirectory) {
  const auto quote = read_attestation("tdx/quote.dat");
  EvidenceOptions dir = sample_tdx_options();
  dir.collateral_dir = attestation_path("tdx");
  EvidenceOptions mem = sample_tdx_options();
  mem.tdx_collateral = sample_collateral_in_memory();
  const Report a = verify_evidence(quote, dir), b = verify_evidence(quote, mem);
  EXPECT_EQ(b.failed_step, a.failed_step);
  EXPECT_EQ(b.message, a.message);
  EXPECT_EQ(b.tcb_status, a.tcb_status);
  EXPECT_EQ(b.skipped, a.skipped);
  EXPECT_EQ(b.failed_step, "qe_identity_mismatch");  // the sample QE Identity (see docs/verify.md)
  EXPECT_TRUE(b.skipped.empty());                    // both CRLs applied
}

TEST(VerifyEvidence, TdxCollateralInMemoryWithoutCrlsSkipsThem) {
  EvidenceOptions o = sample_tdx_options();
  TdxCollateralData c = sample_collateral_in_memory();
  c.root_ca_crl_der.clear();
  c.pck_ca_crl_der.clear();
  o.tdx_collateral = c;
  o.no_tcb_check = true;
  const Report r = verify_evidence(read_attestation("tdx/quote.dat"), o);
  // The sample QE Identity is checked even without the TCB status, and names another QE than the
  // sample quote's; the skipped checks are reported all the same.
  EXPECT_EQ(r.failed_step, "qe_identity_mismatch") << r.message;
  EXPECT_EQ(r.skipped, (std::vector<std::string>{"tcb", "crl"}));
}

TEST(VerifyEvidence, CollateralTwiceOrForTheWrongTeeIsInvalid) {
  EvidenceOptions o = sample_tdx_options();
  o.tdx_collateral = sample_collateral_in_memory();
  o.collateral_dir = attestation_path("tdx");
  EXPECT_THROW(verify_evidence(read_attestation("tdx/quote.dat"), o), Error);
  EvidenceOptions snp;
  snp.tdx_collateral = sample_collateral_in_memory();
  EXPECT_THROW(verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), snp), Error);
  EvidenceOptions tdx = sample_tdx_options();
  tdx.snp_crl = "x";
  EXPECT_THROW(verify_evidence(read_attestation("tdx/quote.dat"), tdx), Error);
}

TEST(VerifyEvidence, SnpCrlThatIsNotAmdsIsCollateralInvalid) {
  EvidenceOptions o;
  o.vcek = read_attestation_text("sev-snp/sev-gcp-vcek.pem");
  o.snp_crl = read_attestation_text("tdx/rootCaCrl.der");  // issued by Intel's sample root, not ARK-Milan
  const Report r = verify_evidence(read_attestation("sev-snp/sev-gcp-reportdata.bin"), o);
  EXPECT_EQ(r.failed_step, "collateral_invalid");
  EXPECT_TRUE(r.skipped.empty());
}

}  // namespace
}  // namespace a3s::power::verify

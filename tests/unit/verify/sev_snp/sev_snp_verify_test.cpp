// Verification of the real GCP report with its VCEK and the shipped (pinned) Milan ARK/ASK, the
// policy checks, certificate validity time, and untrusted roots.
#include "verify/sev_snp/sev_snp_verify.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "local_amd_chain.h"
#include "snp_test_data.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {
namespace {

using namespace std::chrono;
using testing::from_hex;
using testing::read_text;
using testing::snp_testdata;

using testing::at_2026;

Endorsements real_vcek() {
  return {read_text(snp_testdata("sev-gcp-vcek.pem")), {}};
}

class RealReport : public ::testing::Test {
 protected:
  std::vector<uint8_t> report = testing::real_report();
  Measurement measurement = from_hex<Measurement>(testing::kRealMeasurement);
  ReportData report_data = from_hex<ReportData>(testing::kRealReportData);
};

TEST_F(RealReport, VerifiesWithItsVcekAndThePinnedMilanRoots) {
  Report parsed;
  const VerifyResult r = verify_report(report, real_vcek(), {}, at_2026(), &parsed);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_TRUE(r.failed_step.empty());
  EXPECT_EQ(parsed.version, 5u);
}

TEST_F(RealReport, VerifiesAtTheCurrentTimeByDefault) {
  const VerifyResult r = verify_report(report, real_vcek(), {});
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST_F(RealReport, VerifiesWithTheChainTheEvidenceBrings) {
  Endorsements e = real_vcek();
  e.cert_chain = read_text(snp_testdata("sev-gcp-cert-chain.pem"));  // ASK then ARK
  const VerifyResult r = verify_report(report, e, {}, at_2026());
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST_F(RealReport, RightMeasurementAndReportDataPass) {
  Policy p;
  p.expected_measurements = {measurement};
  p.expected_report_data = report_data;
  const VerifyResult r = verify_report(report, real_vcek(), p, at_2026());
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  // A list means "any of".
  Measurement other = measurement;
  other[0] ^= 1;
  p.expected_measurements = {other, measurement};
  EXPECT_TRUE(verify_report(report, real_vcek(), p, at_2026()).accepted);
}

TEST_F(RealReport, WrongMeasurementFailsAtMeasurementMismatch) {
  Policy p;
  Measurement wrong = measurement;
  wrong[47] ^= 0x80;
  p.expected_measurements = {wrong};
  p.expected_report_data = report_data;
  const VerifyResult r = verify_report(report, real_vcek(), p, at_2026());
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "measurement_mismatch");
  EXPECT_NE(r.message.find(testing::kRealMeasurement), std::string::npos);
}

TEST_F(RealReport, WrongReportDataFailsAtReportDataMismatch) {
  Policy p;
  p.expected_measurements = {measurement};
  ReportData wrong = report_data;
  wrong[0] ^= 1;
  p.expected_report_data = wrong;
  const VerifyResult r = verify_report(report, real_vcek(), p, at_2026());
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "report_data_mismatch");
}

TEST_F(RealReport, MinimumTcb) {
  Policy p;
  p.minimum_tcb = TcbVersion{0, 4, 0, 27, 222};  // exactly the reported TCB
  EXPECT_TRUE(verify_report(report, real_vcek(), p, at_2026()).accepted);
  p.minimum_tcb = TcbVersion{0, 4, 0, 28, 0};  // newer SNP firmware
  const VerifyResult r = verify_report(report, real_vcek(), p, at_2026());
  EXPECT_EQ(r.failed_step, "tcb_out_of_date");
}

TEST_F(RealReport, MissingVcekIsCertificateMissing) {
  const VerifyResult r = verify_report(report, {}, {}, at_2026());
  EXPECT_EQ(r.failed_step, "certificate_missing");
}

TEST_F(RealReport, GarbageVcekIsChainInvalid) {
  for (const std::string& vcek :
       {std::string("not a certificate"),
        std::string("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
        std::string(1, '\0')}) {
    EXPECT_EQ(verify_report(report, {vcek, {}}, {}, at_2026()).failed_step, "chain_invalid");
  }
}

TEST_F(RealReport, CertificatesOutsideTheirValidityAreCollateralExpired) {
  VerifyOptions before = at_2026();
  before.at = sys_days{year{2025} / 1 / 1};  // the VCEK is valid from 2025-12-05
  EXPECT_EQ(verify_report(report, real_vcek(), {}, before).failed_step, "collateral_expired");
  VerifyOptions after = at_2026();
  after.at = sys_days{year{2033} / 1 / 1};  // and until 2032-12-05
  EXPECT_EQ(verify_report(report, real_vcek(), {}, after).failed_step, "collateral_expired");
}

TEST_F(RealReport, AnotherRootIsChainInvalid) {
  const testing::LocalAmdChain local(testing::LeafSpec{});
  VerifyOptions o = at_2026();
  o.anchors = local.anchors();  // trust only a local ARK
  EXPECT_EQ(verify_report(report, real_vcek(), {}, o).failed_step, "chain_invalid");
  // A self-signed root in the evidence's chain that is not pinned.
  Endorsements e = real_vcek();
  e.cert_chain = read_text(snp_testdata("sev-gcp-cert-chain.pem")) + local.ark_pem;
  EXPECT_EQ(verify_report(report, e, {}, at_2026()).failed_step, "chain_invalid");
  // A VCEK from another hierarchy.
  EXPECT_EQ(verify_report(report, {local.vcek_pem, {}}, {}, at_2026()).failed_step, "chain_invalid");
}

TEST_F(RealReport, AnotherKeysCertificateIsSignatureInvalid) {
  // A well-formed chain whose VCEK is not the key that signed this report.
  testing::LeafSpec spec;
  spec.tcb = TcbVersion{0, 4, 0, 27, 222};
  const Report parsed = parse_report(report);
  spec.hw_id.assign(parsed.chip_id.begin(), parsed.chip_id.end());
  const testing::LocalAmdChain local(spec);
  VerifyOptions o = at_2026();
  o.anchors = local.anchors();
  EXPECT_EQ(verify_report(report, {local.vcek_pem, {}}, {}, o).failed_step, "signature_invalid");
}

std::string sha256_fingerprint(const std::string& pem) {
  const crypto::X509Ptr cert = load_certificate(pem);
  if (!cert) return {};
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (X509_digest(cert.get(), EVP_sha256(), md, &n) != 1) return {};
  return testing::hex(md, n);
}

TEST(PinnedAnchors, AreAmdsMilanArkAndAsk) {
  const TrustAnchors pinned = pinned_amd_anchors(AmdProduct::kMilan, /*vlek=*/false);
  ASSERT_EQ(pinned.arks.size(), 1u);
  ASSERT_EQ(pinned.asks.size(), 1u);
  EXPECT_EQ(sha256_fingerprint(pinned.arks[0]),
            "69d063b45344d26a2e94e1f4210de49ef555308287d4c174445c95639a540bcd");
  EXPECT_EQ(sha256_fingerprint(pinned.asks[0]),
            "67d303bd3905fd38db8b20e0793699870e7fa612eaad5dec358293fd8c0bac1b");
  // The ARK's public key, as published independently of this certificate.
  const crypto::X509Ptr ark = load_certificate(pinned.arks[0]);
  unsigned char* spki = nullptr;
  const int n = i2d_PUBKEY(X509_get0_pubkey(ark.get()), &spki);
  ASSERT_GT(n, 0);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  EVP_Digest(spki, static_cast<size_t>(n), md, &md_len, EVP_sha256(), nullptr);
  OPENSSL_free(spki);
  EXPECT_EQ(testing::hex(md, md_len), "9f056bee44377e29308cb5ffa895bdfb62d18881fa6bed8d6f075b0204089cb9");
  // The same certificates AMD's KDS serves as the Milan cert_chain (ASK, then ARK).
  const auto chain = load_certificates(read_text(snp_testdata("sev-gcp-cert-chain.pem")));
  ASSERT_TRUE(chain && chain->size() == 2);
  EXPECT_EQ(to_der((*chain)[0].get()), to_der(load_certificate(pinned.asks[0]).get()));
  EXPECT_EQ(to_der((*chain)[1].get()), to_der(load_certificate(pinned.arks[0]).get()));
}

TEST(SevSnpVerify, BadReportSizesAreMalformedEvidence) {
  const auto vcek = real_vcek();
  auto bytes = testing::real_report();
  EXPECT_EQ(verify_report({}, vcek, {}).failed_step, "malformed_evidence");
  EXPECT_EQ(verify_report(std::span<const uint8_t>(bytes).first(100), vcek, {}).failed_step,
            "malformed_evidence");
  bytes.push_back(0);
  EXPECT_EQ(verify_report(bytes, vcek, {}).failed_step, "malformed_evidence");
  bytes.pop_back();
  bytes[0] = 9;
  EXPECT_EQ(verify_report(bytes, vcek, {}).failed_step, "unsupported_version");
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp

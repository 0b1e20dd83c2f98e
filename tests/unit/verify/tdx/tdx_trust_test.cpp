// The trust anchors beyond the PCK chain: the quoting enclave's identity (always checked: against
// QE Identity collateral, else Intel's TD QE built in), the role of the TCB Info / QE Identity signer
// (Intel's TCB Signing certificate directly under the root), the advisory policy, and the
// MRCONFIGID / MROWNER policy.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "tdx_test_data.h"
#include "test_quote_signer.h"
#include "verify/tdx/certificate_chain.h"
#include "verify/tdx/qe_identity.h"
#include "verify/tdx/tcb_evaluation.h"
#include "verify/tdx/tdx_verify.h"

namespace a3s::power::verify::tdx {
namespace {

using namespace testing;

std::span<const uint8_t> trust_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// ---- QE identity ---------------------------------------------------------------------------------

TEST(TdxQeIdentity, BuiltInValuesAreIntelsTdQe) {
  const QeIdentity& id = intel_td_qe_identity();
  EXPECT_EQ(to_hex(id.mrsigner), "dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5");
  EXPECT_EQ(id.isv_prod_id, 2);
  EXPECT_EQ(to_hex(id.misc_select), "00000000");
  EXPECT_EQ(to_hex(id.misc_select_mask), "ffffffff");
  EXPECT_EQ(to_hex(id.attributes), "11000000000000000000000000000000");
  EXPECT_EQ(to_hex(id.attributes_mask), "fbffffffffffffff0000000000000000");
  // The real quote's QE is Intel's TD QE.
  const TdxQuote real = parse_tdx_quote(edgeless_quote());
  EXPECT_TRUE(check_qe_identity(id, real.qe_report, "Intel's TD QE").accepted);
}

TEST(TdxQeIdentity, EveryFieldOfTheBuiltInIdentityIsCompared) {
  const QeReport real = parse_tdx_quote(edgeless_quote()).qe_report;
  const QeIdentity& id = intel_td_qe_identity();
  auto step = [&](QeReport qe) { return check_qe_identity(id, qe, "Intel's TD QE").failed_step; };
  QeReport qe = real;
  qe.mr_signer[31] ^= 1;
  EXPECT_EQ(step(qe), steps::kQeIdentityMismatch);
  qe = real;
  qe.isv_prod_id = 1;
  EXPECT_EQ(step(qe), steps::kQeIdentityMismatch);
  qe = real;
  qe.misc_select[0] ^= 1;
  EXPECT_EQ(step(qe), steps::kQeIdentityMismatch);
  qe = real;
  qe.attributes[0] |= 0x02;  // DEBUG, under the mask
  EXPECT_EQ(step(qe), steps::kQeIdentityMismatch);
  qe = real;
  qe.attributes[0] ^= 0x04;  // bit 2 (PROVISIONKEY), outside the mask
  qe.attributes[8] ^= 0xFF;  // XFRM, outside the mask
  EXPECT_TRUE(check_qe_identity(id, qe, "Intel's TD QE").accepted);
}

TEST(TdxQeIdentity, SampleQuoteWithoutCollateralIsNotIntelsTdQe) {
  // Intel's sample quote verifies up to its QE report, but its QE (MRSIGNER e4bd9fc2..., ISVPRODID
  // 29854) is not Intel's TD QE: skipping the TCB status does not skip the QE identity.
  TdxVerifyOptions o = sample_options();
  o.collateral.reset();
  o.skip_tcb_check = true;
  TdxVerifyDetails details;
  const VerifyResult r = verify_tdx_quote(sample_quote(), o, &details);
  EXPECT_EQ(r.failed_step, steps::kQeIdentityMismatch) << r.message;
  EXPECT_NE(r.message.find("Intel's TD QE"), std::string::npos) << r.message;
  EXPECT_EQ(details.tcb_status, "not_checked");
}

TEST(TdxQeIdentity, SampleQuoteWithCollateralAndTcbCheckSkippedUsesTheCollateralIdentity) {
  TdxVerifyOptions o = sample_options();
  o.skip_tcb_check = true;
  const VerifyResult r = verify_tdx_quote(sample_quote(), o);
  EXPECT_EQ(r.failed_step, steps::kQeIdentityMismatch) << r.message;
  EXPECT_NE(r.message.find("QE Identity's 0bf58c3b"), std::string::npos) << r.message;
}

class TdxTrustSigned : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { signer_ = new TestQuoteSigner(); }
  static void TearDownTestSuite() {
    delete signer_;
    signer_ = nullptr;
  }
  static std::vector<uint8_t> body() {
    TdxQuote q = parse_tdx_quote(sample_quote());
    return std::vector<uint8_t>(q.signed_bytes.begin() + 48, q.signed_bytes.end());
  }
  static TdxVerifyOptions options(const std::string& from = "", const std::string& to = "",
                                  QeReportFrom qe = QeReportFrom::kIntelSample) {
    TdxVerifyOptions o;
    o.root_pem = signer_->root_pem();
    o.collateral = signer_->collateral(from, to, qe);
    o.collateral->crls_der = signer_->crls(false);
    o.at = sample_time();
    return o;
  }
  static std::string step(const std::vector<uint8_t>& quote, const TdxVerifyOptions& o,
                          TdxVerifyDetails* details = nullptr) {
    VerifyResult r = verify_tdx_quote(quote, o, details);
    return r.accepted ? "accepted" : r.failed_step + " (" + r.message + ")";
  }
  static bool starts(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
  static TestQuoteSigner* signer_;
};

TestQuoteSigner* TdxTrustSigned::signer_ = nullptr;

TEST_F(TdxTrustSigned, WithoutCollateralOnlyIntelsTdQeIsAccepted) {
  TdxVerifyOptions o;
  o.root_pem = signer_->root_pem();
  o.at = sample_time();
  o.skip_tcb_check = true;
  EXPECT_EQ(step(signer_->quote(body(), QeReportFrom::kRealTdQe), o), "accepted");
  EXPECT_TRUE(starts(step(signer_->quote(body(), QeReportFrom::kIntelSample), o), steps::kQeIdentityMismatch));
}

TEST_F(TdxTrustSigned, CollateralIdentityIsUsedWhenGiven) {
  const auto real_qe = signer_->quote(body(), QeReportFrom::kRealTdQe);
  // Full check with a QE Identity naming Intel's TD QE.
  TdxVerifyOptions o = options("", "", QeReportFrom::kRealTdQe);
  EXPECT_EQ(step(real_qe, o), "accepted");
  o.skip_tcb_check = true;
  EXPECT_EQ(step(real_qe, o), "accepted");
  // A QE Identity naming another enclave refuses Intel's TD QE, with and without the TCB status.
  o = options("", "", QeReportFrom::kIntelSample);
  EXPECT_TRUE(starts(step(real_qe, o), steps::kQeIdentityMismatch)) << step(real_qe, o);
  o.skip_tcb_check = true;
  EXPECT_TRUE(starts(step(real_qe, o), steps::kQeIdentityMismatch)) << step(real_qe, o);
}

// ---- TCB signing certificate role -----------------------------------------------------------------

TEST_F(TdxTrustSigned, PckChainAsTcbSigningChainIsRefusedAtTheRole) {
  // The PCK chain verifies to the same root ...
  auto pck = parse_pem_certificates(trust_bytes(signer_->pck_chain_pem()));
  auto root = parse_pem_certificates(trust_bytes(signer_->root_pem()));
  ASSERT_EQ(pck.size(), 2u);
  EXPECT_TRUE(verify_certificate_chain(pck[0].get(), {pck[1].get()}, root[0].get(), {}, sample_time(), "PCK")
                  .accepted);
  // ... but neither its leaf nor its CA is Intel's TCB Signing certificate.
  EXPECT_EQ(check_tcb_signing_role(pck[0].get(), root[0].get()).failed_step, steps::kCollateralInvalid);
  EXPECT_EQ(check_tcb_signing_role(pck[1].get(), root[0].get()).failed_step, steps::kCollateralInvalid);
  TdxVerifyOptions o = options();
  o.collateral->tcb_sign_chain_pem = signer_->pck_chain_pem() + signer_->root_pem();
  const std::string s = step(signer_->quote(body()), o);
  EXPECT_TRUE(starts(s, steps::kCollateralInvalid)) << s;
  EXPECT_NE(s.find("is not Intel's TCB Signing certificate"), std::string::npos) << s;
  EXPECT_EQ(s.find("signature"), std::string::npos) << s;  // refused before any JSON signature check
  o.skip_tcb_check = true;  // the QE Identity is still verified with this chain
  EXPECT_NE(step(signer_->quote(body()), o).find("is not Intel's TCB Signing certificate"), std::string::npos);
}

TEST(TdxTcbSigningRole, SampleChains) {
  const auto root = parse_pem_certificates(read_bytes(tdx_dir() / "trustedRootCaCert.pem"));
  const auto tcb = parse_pem_certificates(read_bytes(tdx_dir() / "tcbSignChain.pem"));
  ASSERT_EQ(tcb.size(), 2u);
  EXPECT_TRUE(check_tcb_signing_role(tcb[1].get(), root[0].get()).accepted);  // Intel SGX TCB Signing
  EXPECT_FALSE(check_tcb_signing_role(tcb[0].get(), root[0].get()).accepted);  // the root itself
  const auto pck = parse_pem_certificates(read_bytes(tdx_dir() / "pckCert.pem"));
  EXPECT_EQ(check_tcb_signing_role(pck[0].get(), root[0].get()).failed_step, steps::kCollateralInvalid);

  // Intel's sample PCK chain given as the TCB signing chain: the chain is fine, the role is not.
  TdxVerifyOptions o = sample_options();
  o.collateral->tcb_sign_chain_pem =
      read_text(tdx_dir() / "pckCert.pem") + read_text(tdx_dir() / "pckSignChain.pem");
  const VerifyResult r = verify_tdx_quote(sample_quote(), o);
  EXPECT_EQ(r.failed_step, steps::kCollateralInvalid) << r.message;
  EXPECT_NE(r.message.find("CN=Intel SGX PCK Certificate"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("is not Intel's TCB Signing certificate"), std::string::npos) << r.message;
}

// ---- advisories -------------------------------------------------------------------------------------

TEST_F(TdxTrustSigned, SwHardeningNeededIsAcceptedWithItsAdvisories) {
  const auto q = signer_->quote(body());
  TdxVerifyOptions o = options("\"tcbStatus\":\"UpToDate\"", "\"tcbStatus\":\"SWHardeningNeeded\"");
  TdxVerifyDetails details;
  EXPECT_EQ(step(q, o, &details), "accepted");
  EXPECT_EQ(details.tcb_status, "SWHardeningNeeded");
  // The platform level's, then the QE level's (the same two here: listed once).
  EXPECT_EQ(details.advisory_ids, (std::vector<std::string>{"INTEL-SA-00079", "INTEL-SA-00076"}));

  o.reject_advisory_statuses = true;
  EXPECT_TRUE(starts(step(q, o), steps::kAdvisoryRejected)) << step(q, o);
  o.reject_advisory_statuses = false;
  o.rejected_advisory_ids = {"intel-sa-00076"};  // case does not matter
  EXPECT_TRUE(starts(step(q, o), steps::kAdvisoryRejected)) << step(q, o);
  o.rejected_advisory_ids = {"INTEL-SA-00615"};  // not listed
  EXPECT_EQ(step(q, o), "accepted");
}

TEST_F(TdxTrustSigned, UpToDateIsNotAnAdvisoryStatus) {
  const auto q = signer_->quote(body());
  TdxVerifyOptions o = options();
  o.reject_advisory_statuses = true;
  EXPECT_EQ(step(q, o), "accepted");
}

TEST_F(TdxTrustSigned, ConfigurationNeededShowsItsAdvisoriesAndIsRefusedByDefault) {
  const auto q = signer_->quote(body());
  TdxVerifyOptions o = options(
      "\"tcbStatus\":\"UpToDate\",\"tcbDate\":\"2021-08-06T13:55:15Z\",\"advisoryIDs\":[\"INTEL-SA-00079\","
      "\"INTEL-SA-00076\"]",
      "\"tcbStatus\":\"ConfigurationNeeded\",\"tcbDate\":\"2021-08-06T13:55:15Z\",\"advisoryIDs\":[\"INTEL-SA-"
      "00615\"]");
  TdxVerifyDetails details;
  EXPECT_TRUE(starts(step(q, o, &details), steps::kTcbOutOfDate));
  EXPECT_EQ(details.advisory_ids, (std::vector<std::string>{"INTEL-SA-00615"}));
  o.accepted_tcb_statuses.push_back("ConfigurationNeeded");
  EXPECT_EQ(step(q, o, &details), "accepted");
  EXPECT_EQ(details.advisory_ids, (std::vector<std::string>{"INTEL-SA-00615", "INTEL-SA-00079", "INTEL-SA-00076"}));
  o.reject_advisory_statuses = true;
  EXPECT_TRUE(starts(step(q, o), steps::kAdvisoryRejected));
}

TEST_F(TdxTrustSigned, MalformedAdvisoryIdsAreInvalidCollateral) {
  const auto q = signer_->quote(body());
  for (const char* bad : {R"("advisoryIDs":["INTEL SA"])", R"("advisoryIDs":[7])", R"("advisoryIDs":"x")",
                                 R"("advisoryIDs":["\u001b[31m"])"}) {
    TdxVerifyOptions o = options(R"("advisoryIDs":["INTEL-SA-00079","INTEL-SA-00076"])", bad);
    EXPECT_TRUE(starts(step(q, o), steps::kCollateralInvalid)) << bad << ": " << step(q, o);
  }
}

// ---- MRCONFIGID / MROWNER --------------------------------------------------------------------------

TEST(TdxTdIdentityPolicy, MrConfigIdAndMrOwner) {
  const TdxQuote quote = parse_tdx_quote(edgeless_quote());
  TdxVerifyOptions o = edgeless_options();
  o.expected_mr_config_id = quote.body.mr_config_id;
  o.expected_mr_owner = quote.body.mr_owner;
  EXPECT_TRUE(verify_tdx_quote(edgeless_quote(), o).accepted);
  Measurement48 wrong = quote.body.mr_config_id;
  wrong[5] ^= 0x01;
  o.expected_mr_config_id = wrong;
  VerifyResult r = verify_tdx_quote(edgeless_quote(), o);
  EXPECT_EQ(r.failed_step, steps::kMeasurementMismatch);
  EXPECT_NE(r.message.find("MRCONFIGID"), std::string::npos) << r.message;
  o.expected_mr_config_id = quote.body.mr_config_id;
  wrong = quote.body.mr_owner;
  wrong[47] ^= 0x80;
  o.expected_mr_owner = wrong;
  r = verify_tdx_quote(edgeless_quote(), o);
  EXPECT_EQ(r.failed_step, steps::kMeasurementMismatch);
  EXPECT_NE(r.message.find("MROWNER"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace a3s::power::verify::tdx

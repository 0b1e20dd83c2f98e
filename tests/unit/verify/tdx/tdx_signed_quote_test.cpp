// The whole pipeline on quotes re-signed by a test PKI (test_quote_signer.h): full acceptance with
// the TCB check, and the steps Intel's sample files cannot reach on their own — DEBUG, revocation,
// refused or expired TCB collateral, the TDX module identity.
#include <gtest/gtest.h>

#include "tdx_test_data.h"
#include "test_quote_signer.h"
#include "verify/tdx/tdx_verify.h"

namespace a3s::power::verify::tdx {
namespace {

using namespace testing;

class TdxSignedQuote : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { signer_ = new TestQuoteSigner(); }
  static void TearDownTestSuite() {
    delete signer_;
    signer_ = nullptr;
  }

  // Intel's sample TD report body (its TEE_TCB_SVN matches the sample TCB Info level).
  static std::vector<uint8_t> body() {
    TdxQuote q = parse_tdx_quote(sample_quote());
    return std::vector<uint8_t>(q.signed_bytes.begin() + 48, q.signed_bytes.end());
  }

  static TdxVerifyOptions options(const std::string& from = "", const std::string& to = "") {
    TdxVerifyOptions o;
    o.root_pem = signer_->root_pem();
    o.collateral = signer_->collateral(from, to);
    o.collateral->crls_der = signer_->crls(false);
    o.at = sample_time();
    return o;
  }

  static std::string step(const std::vector<uint8_t>& quote, const TdxVerifyOptions& o) {
    VerifyResult r = verify_tdx_quote(quote, o);
    return r.accepted ? "accepted" : r.failed_step + " (" + r.message + ")";
  }

  static TestQuoteSigner* signer_;
};

TestQuoteSigner* TdxSignedQuote::signer_ = nullptr;

TEST_F(TdxSignedQuote, FullVerificationWithTcbCheckAccepts) {
  TdxVerifyDetails details;
  VerifyResult r = verify_tdx_quote(signer_->quote(body()), options(), &details);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(details.tcb_status, "UpToDate");
  EXPECT_EQ(details.qe_tcb_status, "UpToDate");
}

TEST_F(TdxSignedQuote, RejectedAgainstThePinnedIntelRoot) {
  TdxVerifyOptions o = options();
  o.root_pem.reset();
  EXPECT_EQ(verify_tdx_quote(signer_->quote(body()), o).failed_step, steps::kChainInvalid);
}

TEST_F(TdxSignedQuote, DebugTdIsRejected) {
  std::vector<uint8_t> b = body();
  b[120] |= 0x01;  // TDATTRIBUTES bit 0
  EXPECT_EQ(verify_tdx_quote(signer_->quote(b), options()).failed_step, steps::kDebugEnabled);
}

TEST_F(TdxSignedQuote, RevokedPckCertificate) {
  TdxVerifyOptions o = options();
  o.collateral->crls_der = signer_->crls(true);
  VerifyResult r = verify_tdx_quote(signer_->quote(body()), o);
  EXPECT_EQ(r.failed_step, steps::kRevoked) << r.message;
  o.skip_tcb_check = true;  // CRLs apply to the chain even when the TCB check is skipped
  EXPECT_EQ(verify_tdx_quote(signer_->quote(body()), o).failed_step, steps::kRevoked);
}

TEST_F(TdxSignedQuote, TcbStatusPolicy) {
  auto q = signer_->quote(body());
  TdxVerifyOptions o = options("\"tcbStatus\":\"UpToDate\"", "\"tcbStatus\":\"OutOfDate\"");
  EXPECT_EQ(verify_tdx_quote(q, o).failed_step, steps::kTcbOutOfDate);
  o.accepted_tcb_statuses.push_back("OutOfDate");
  EXPECT_TRUE(verify_tdx_quote(q, o).accepted) << step(q, o);
}

TEST_F(TdxSignedQuote, ExpiredCollateral) {
  auto q = signer_->quote(body());
  TdxVerifyOptions o =
      options("\"nextUpdate\":\"2041-08-06T13:55:15Z\"", "\"nextUpdate\":\"2025-08-31T00:00:00Z\"");
  EXPECT_EQ(verify_tdx_quote(q, o).failed_step, steps::kCollateralExpired) << step(q, o);
}

TEST_F(TdxSignedQuote, CollateralForAnotherPlatform) {
  auto q = signer_->quote(body());
  TdxVerifyOptions o = options("\"fmspc\":\"ed742af8adf5\"", "\"fmspc\":\"00806f050000\"");
  EXPECT_EQ(verify_tdx_quote(q, o).failed_step, steps::kCollateralInvalid) << step(q, o);
}

TEST_F(TdxSignedQuote, TcbBelowEveryLevel) {
  std::vector<uint8_t> b = body();
  b[2] -= 1;  // TEE_TCB_SVN[2]
  EXPECT_EQ(verify_tdx_quote(signer_->quote(b), options()).failed_step, steps::kTcbOutOfDate);
}

TEST_F(TdxSignedQuote, AnotherTdxModuleSigner) {
  std::vector<uint8_t> b = body();
  b[64] ^= 1;  // MRSIGNERSEAM
  EXPECT_EQ(verify_tdx_quote(signer_->quote(b), options()).failed_step, steps::kTcbMismatch);
}

TEST_F(TdxSignedQuote, CollateralSignedByAnotherKey) {
  auto q = signer_->quote(body());
  TdxVerifyOptions o = options();
  TestQuoteSigner other;
  o.collateral->tcb_info_json = other.collateral().tcb_info_json;
  EXPECT_EQ(verify_tdx_quote(q, o).failed_step, steps::kCollateralInvalid) << step(q, o);
}

// TDX 1.5 TCB Info: a tdxModuleIdentities entry for module version TEE_TCB_SVN[1] (0xC1 in the
// sample body) with one level at TEE_TCB_SVN[0] (0x52 = 82).
std::string module_identities(const std::string& id, int isvsvn, const std::string& status) {
  return "\"tdxModuleIdentities\":[{\"id\":\"" + id + "\",\"mrsigner\":\"" + std::string(96, '0') +
         "\",\"attributes\":\"0000000000000000\",\"attributesMask\":\"FFFFFFFFFFFFFFFF\",\"tcbLevels\":[{"
         "\"tcb\":"
         "{\"isvsvn\":" +
         std::to_string(isvsvn) + "},\"tcbDate\":\"2021-08-06T13:55:15Z\",\"tcbStatus\":\"" + status +
         "\"}]}],\"tdxModule\":{";
}

TEST_F(TdxSignedQuote, TdxModuleIdentities) {
  auto q = signer_->quote(body());
  const std::string at = "\"tdxModule\":{";
  TdxVerifyDetails details;
  VerifyResult r = verify_tdx_quote(q, options(at, module_identities("TDX_C1", 82, "UpToDate")), &details);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_EQ(details.tdx_module_tcb_status, "UpToDate");
  EXPECT_EQ(step(q, options(at, module_identities("TDX_C1", 83, "UpToDate"))).rfind(steps::kTcbOutOfDate, 0),
            0u);
  EXPECT_EQ(step(q, options(at, module_identities("TDX_C1", 82, "OutOfDate"))).rfind(steps::kTcbOutOfDate, 0),
            0u);
  EXPECT_EQ(step(q, options(at, module_identities("TDX_02", 82, "UpToDate"))).rfind(steps::kTcbMismatch, 0),
            0u);
  std::vector<uint8_t> b = body();
  b[64] ^= 1;  // MRSIGNERSEAM
  EXPECT_EQ(step(signer_->quote(b), options(at, module_identities("TDX_C1", 82, "UpToDate")))
                .rfind(steps::kTcbMismatch, 0),
            0u);
}

}  // namespace
}  // namespace a3s::power::verify::tdx

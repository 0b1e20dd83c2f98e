// Collateral pieces on their own: signed JSON extraction, ISO 8601 times, TCB Info / QE Identity
// parsing, PCK certificate SGX extensions, TCB level and QE identity evaluation, CRL coverage, and
// the pinned root.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/hex.h"
#include "tdx_test_data.h"
#include "verify/tdx/certificate_chain.h"
#include "verify/tdx/intel_root_ca.h"
#include "verify/tdx/pck_extensions.h"
#include "verify/tdx/qe_identity.h"
#include "verify/tdx/signed_json.h"
#include "verify/tdx/tcb_evaluation.h"
#include "verify/tdx/tcb_info.h"

namespace a3s::power::verify::tdx {
namespace {

using namespace testing;

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(TdxCollateral, RawJsonMemberIsTheExactText) {
  std::string doc = R"( { "a" : [1, {"b":"}"}] , "tcbInfo":{"x": "y\"}" ,"z":{}} ,"signature":"00"} )";
  EXPECT_EQ(raw_json_member(doc, "tcbInfo"), R"({"x": "y\"}" ,"z":{}})");
  EXPECT_EQ(raw_json_member(doc, "signature"), R"("00")");
  EXPECT_EQ(raw_json_member(doc, "x"), std::nullopt);                                     // not top level
  EXPECT_EQ(raw_json_member(R"({"tcbInfo":{},"tcbInfo":{}})", "tcbInfo"), std::nullopt);  // duplicate
  for (std::string bad : {"", "[]", "{", R"({"tcbInfo":{)", R"({"tcbInfo")", R"({"tcbInfo":"x)"}) {
    EXPECT_EQ(raw_json_member(bad, "tcbInfo"), std::nullopt) << bad;
  }
}

TEST(TdxCollateral, Iso8601Times) {
  EXPECT_EQ(parse_iso8601_utc("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_iso8601_utc("2041-08-06T13:55:15Z"), 2259410115);
  EXPECT_EQ(parse_iso8601_utc("2024-02-29T12:00:00.123Z"), 1709208000);
  EXPECT_EQ(parse_iso8601_utc("2024-02-29 12:00:00Z"), std::nullopt);
  EXPECT_EQ(parse_iso8601_utc("2024-02-29T12:00:00"), std::nullopt);
  EXPECT_EQ(parse_iso8601_utc("2024-13-01T00:00:00Z"), std::nullopt);
}

TEST(TdxCollateral, SampleCollateralParses) {
  TdxCollateral c = load_tdx_collateral_dir(tdx_dir().string());
  EXPECT_EQ(c.crls_der.size(), 2u);
  auto tcb = parse_tdx_tcb_info(*raw_json_member(c.tcb_info_json, "tcbInfo"));
  EXPECT_EQ(to_hex(tcb.fmspc), "ed742af8adf5");
  EXPECT_EQ(to_hex(tcb.pce_id), "8a67");
  ASSERT_EQ(tcb.levels.size(), 1u);
  EXPECT_EQ(tcb.levels[0].status, "UpToDate");
  EXPECT_EQ(tcb.levels[0].pce_svn, 10593);
  EXPECT_EQ(to_hex(tcb.levels[0].tdx_components), "52c1a38cf7edf30a524b4ebb049f59c7");  // 65473 -> 0xc1
  auto qe = parse_qe_identity(*raw_json_member(c.qe_identity_json, "enclaveIdentity"));
  EXPECT_EQ(qe.id, "TD_QE");
  EXPECT_EQ(qe.isv_prod_id, 29854);
  ASSERT_EQ(qe.levels.size(), 1u);
  EXPECT_EQ(qe.levels[0].isv_svn, 12677);
  EXPECT_THROW(load_tdx_collateral_dir("/nonexistent"), std::runtime_error);
}

TEST(TdxCollateral, TcbInfoFormatErrors) {
  EXPECT_THROW(parse_tdx_tcb_info("{"), std::runtime_error);
  EXPECT_THROW(parse_tdx_tcb_info(R"({"id":"SGX","version":3})"), std::runtime_error);
  EXPECT_THROW(parse_tdx_tcb_info(R"({"id":"TDX","version":2})"), std::runtime_error);
  EXPECT_THROW(parse_qe_identity(R"({"id":"QE","version":2})"), std::runtime_error);
}

TEST(TdxCollateral, PckExtensionsOfTheRealQuote) {
  auto quote = parse_tdx_quote(edgeless_quote());
  auto certs = parse_pem_certificates(quote.pck_cert_data);
  ASSERT_EQ(certs.size(), 3u);
  PckExtensions ext = parse_pck_extensions(certs[0].get());
  EXPECT_EQ(to_hex(ext.fmspc), "00806f050000");
  EXPECT_EQ(ext.pce_svn, 11);
  EXPECT_THROW(parse_pck_extensions(certs[1].get()), std::runtime_error);  // a CA, not a PCK cert
}

TEST(TdxCollateral, PckExtensionsOfTheSampleCert) {
  auto certs = parse_pem_certificates(bytes_of(read_text(tdx_dir() / "pckCert.pem")));
  PckExtensions ext = parse_pck_extensions(certs[0].get());
  EXPECT_EQ(to_hex(ext.fmspc), "ed742af8adf5");
  EXPECT_EQ(to_hex(ext.pce_id), "8a67");
  EXPECT_EQ(ext.pce_svn, 10593);
  EXPECT_EQ(to_hex(ext.sgx_tcb_components), "52c1a38cf7edf30a524b4ebb049f59c7");
}

struct SampleTcb {
  TdxTcbInfo info;
  QeIdentity qe_identity;
  PckExtensions pck;
  TdxQuote quote;
};

SampleTcb sample_tcb() {
  TdxCollateral c = load_tdx_collateral_dir(tdx_dir().string());
  auto certs = parse_pem_certificates(bytes_of(read_text(tdx_dir() / "pckCert.pem")));
  return {parse_tdx_tcb_info(*raw_json_member(c.tcb_info_json, "tcbInfo")),
          parse_qe_identity(*raw_json_member(c.qe_identity_json, "enclaveIdentity")),
          parse_pck_extensions(certs[0].get()), parse_tdx_quote(sample_quote())};
}

TEST(TdxCollateral, TcbLevelEvaluation) {
  SampleTcb s = sample_tcb();
  EXPECT_EQ(evaluate_tdx_tcb(s.info, s.pck, s.quote.body).tcb_status, "UpToDate");

  TdReportBody older = s.quote.body;
  older.tee_tcb_svn[3] -= 1;  // one TDX component below the only level
  EXPECT_EQ(evaluate_tdx_tcb(s.info, s.pck, older).result.failed_step, steps::kTcbOutOfDate);

  PckExtensions old_pce = s.pck;
  old_pce.pce_svn -= 1;
  EXPECT_EQ(evaluate_tdx_tcb(s.info, old_pce, s.quote.body).result.failed_step, steps::kTcbOutOfDate);

  PckExtensions other = s.pck;
  other.fmspc[0] ^= 1;
  EXPECT_EQ(evaluate_tdx_tcb(s.info, other, s.quote.body).result.failed_step, steps::kCollateralInvalid);

  TdReportBody other_module = s.quote.body;
  other_module.mr_signer_seam[0] ^= 1;
  EXPECT_EQ(evaluate_tdx_tcb(s.info, s.pck, other_module).result.failed_step, steps::kTcbMismatch);
}

TEST(TdxCollateral, QeIdentityEvaluation) {
  SampleTcb s = sample_tcb();
  QeReport qe = s.quote.qe_report;
  QeIdentity id = s.qe_identity;
  id.mrsigner = qe.mr_signer;  // see the note in the report: Intel's sample files disagree here
  EXPECT_EQ(evaluate_qe_identity(id, qe).tcb_status, "UpToDate");
  QeReport older = qe;
  older.isv_svn -= 1;
  EXPECT_EQ(evaluate_qe_identity(id, older).result.failed_step, steps::kTcbOutOfDate);
  QeReport other = qe;
  other.isv_prod_id += 1;
  EXPECT_EQ(evaluate_qe_identity(id, other).result.failed_step, steps::kQeIdentityMismatch);
  other = qe;
  other.mr_signer[5] ^= 1;
  EXPECT_EQ(evaluate_qe_identity(id, other).result.failed_step, steps::kQeIdentityMismatch);
  other = qe;
  other.attributes[0] ^= 1;
  EXPECT_EQ(evaluate_qe_identity(id, other).result.failed_step, steps::kQeIdentityMismatch);
}

TEST(TdxCollateral, EveryChainCertificateNeedsItsIssuersCrl) {
  TdxVerifyOptions o = sample_options();
  o.collateral->crls_der.resize(1);  // root CA CRL only: the PCK CA's CRL is missing
  VerifyResult r = verify_tdx_quote(sample_quote(), o);
  EXPECT_EQ(r.failed_step, steps::kCollateralInvalid) << r.message;
  o.collateral->crls_der = {{1, 2, 3}};
  EXPECT_EQ(verify_tdx_quote(sample_quote(), o).failed_step, steps::kCollateralInvalid);
}

TEST(TdxCollateral, PinnedRootFingerprint) {
  auto certs = parse_pem_certificates(bytes_of(std::string(intel_sgx_root_ca_pem())));
  ASSERT_EQ(certs.size(), 1u);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  ASSERT_EQ(X509_digest(certs[0].get(), EVP_sha256(), md, &len), 1);
  EXPECT_EQ(to_hex({md, len}), "44a0196b2b99f889b8e149e95b807a350e7424964399e885a7cbb8ccfab674d3");
  EXPECT_EQ(subject_of(certs[0].get()), "/CN=Intel SGX Root CA/O=Intel Corporation/L=Santa Clara/ST=CA/C=US");
}

}  // namespace
}  // namespace a3s::power::verify::tdx

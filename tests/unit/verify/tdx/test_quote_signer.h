// A test PKI that stands in for Intel's: its own root CA, PCK CA (named like Intel's "Intel SGX PCK
// Processor CA", so that the PCS query for its quotes can be made), PCK certificate (carrying the SGX
// extensions of Intel's sample PCK certificate), TCB signing certificate and CRLs, and a signer that
// rebuilds a TDX quote v4 around any TD report body with a fresh attestation key, a QE report signed
// by the PCK key, and the PCK chain embedded (certification data 6 with nested 5). With it the tests
// reach every verification step, including the ones Intel's sample files cannot (full TCB
// acceptance, DEBUG through the whole pipeline, revocation).
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "crypto/openssl.h"
#include "verify/tdx/tdx_collateral.h"
#include "attestation/tdx/quote.h"

namespace a3s::power::verify::tdx::testing {

// Which QE report a re-signed quote carries: Intel's sample one (MRSIGNER e4bd9fc2..., ISVPRODID 29854:
// not Intel's TD QE) or the real quote's (Intel's TD QE: MRSIGNER dc9e2a7c..., ISVPRODID 2).
enum class QeReportFrom { kIntelSample, kRealTdQe };

class TestQuoteSigner {
 public:
  TestQuoteSigner();  // builds the PKI; all certificates valid 2021-01-01 .. 2031-01-01

  std::string root_pem() const;
  // Quote v4 with `body` (584 bytes of TD report body) and the QE report `qe_from`, re-signed.
  std::vector<uint8_t> quote(const std::vector<uint8_t>& body, QeReportFrom qe_from = QeReportFrom::kIntelSample) const;
  // TCB Info / QE Identity from Intel's sample, re-signed by this PKI's TCB signing key (the QE
  // Identity's MRSIGNER set to the MRSIGNER of the QE report `qe_from`); the first `tcb_info_from` in
  // the TCB Info text is replaced by `tcb_info_to` before signing. The TCB signing certificate has
  // Intel's CN "Intel SGX TCB Signing" and is issued by the test root.
  TdxCollateral collateral(const std::string& tcb_info_from = "", const std::string& tcb_info_to = "",
                           QeReportFrom qe_from = QeReportFrom::kIntelSample) const;
  // The PCK certificate then the PCK CA (PEM): a chain to the test root that is not a TCB signing chain.
  std::string pck_chain_pem() const;
  // CRLs: the root's (empty) and the PCK CA's, revoking the PCK certificate when `revoke_pck`.
  std::vector<std::vector<uint8_t>> crls(bool revoke_pck) const;

 private:
  crypto::EvpPkeyPtr root_key_, pck_ca_key_, pck_key_, tcb_key_, attestation_key_;
  crypto::X509Ptr root_, pck_ca_, pck_, tcb_;
};

}  // namespace a3s::power::verify::tdx::testing

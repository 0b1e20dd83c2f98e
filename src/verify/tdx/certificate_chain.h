// X.509 certificate chains of Intel's SGX/TDX PKI: the PCK chain (PCK cert -> PCK Platform/Processor CA
// -> Intel SGX Root CA) and the TCB signing chain (TCB Signing cert -> Intel SGX Root CA).
//
// Source: Intel "SGX PCK Certificate and Certificate Revocation List Profile Specification". Chains
// verify with OpenSSL 3 (X509_verify_cert) to exactly one trust anchor, at a caller-given time.
#pragma once

#include <cstdint>
#include <ctime>
#include <span>
#include <string>
#include <vector>

#include "crypto/openssl.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::tdx {

// Certificates in a PEM bundle, in file order. Throws std::runtime_error (message names the position
// of the bad block) when the bundle holds no certificate or a block that is not a certificate.
std::vector<crypto::X509Ptr> parse_pem_certificates(std::span<const uint8_t> pem);

// A DER CRL; throws std::runtime_error when the bytes are not one.
crypto::X509CrlPtr parse_der_crl(std::span<const uint8_t> der);

// Verifies `leaf` through `intermediates` to `root` (the only trusted certificate) at time `at`
// (Unix seconds). A self-signed certificate among `intermediates` must be `root` itself (a chain that
// carries another root is refused even if OpenSSL would ignore it), and every certificate in
// `intermediates` must be part of the verified chain (no stray or altered extra certificates). When `crls` is
// non-empty every certificate in the chain must be covered by a CRL from its issuer. Failure steps:
// chain_invalid (signature, validity, constraints, other root), certificate_revoked, collateral_invalid (CRL
// missing for an issuer or badly signed), collateral_expired (CRL outside its validity at `at`). `what` names
// the chain in messages ("PCK chain", "TCB signing chain").
VerifyResult verify_certificate_chain(X509* leaf, const std::vector<X509*>& intermediates, X509* root,
                                      const std::vector<X509_CRL*>& crls, std::time_t at,
                                      const std::string& what);

// The subject CN Intel gives its TCB Signing certificate (the signer of TCB Info and QE Identity).
inline constexpr const char* kTcbSigningCommonName = "Intel SGX TCB Signing";

// The role of the signer of TCB Info / QE Identity, checked after verify_certificate_chain: `cert`
// is Intel's TCB Signing certificate, i.e. its subject has exactly one CN, "Intel SGX TCB Signing",
// it is not a CA (X509_check_ca == 0) and it is issued directly by `root` (no intermediate: a PCK
// certificate or PCK CA also chains to the root, but may not sign collateral). Source: Intel "SGX PCK
// Certificate and CRL Profile" (TCB Signing Certificate: issuer Intel SGX Root CA, CN "Intel SGX TCB
// Signing"). Failure: collateral_invalid, naming the certificate's subject (printable ASCII only).
VerifyResult check_tcb_signing_role(X509* cert, X509* root);

// One-line subject of a certificate, for messages.
std::string subject_of(X509* cert);

}  // namespace a3s::power::verify::tdx

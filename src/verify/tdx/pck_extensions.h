// The Intel SGX extensions of a PCK certificate (OID 1.2.840.113741.1.13.1): the platform's FMSPC,
// PCE-ID and the TCB the certificate was issued for.
//
// Source: Intel "SGX PCK Certificate and CRL Profile Specification", section "Intel SGX Extensions":
// a SEQUENCE of SEQUENCE { OBJECT IDENTIFIER, value } with
//   .1 PPID (OCTET STRING 16), .2 TCB (SEQUENCE of { OID .2.1 ... .2.16 INTEGER: SGX TCB components,
//   .2.17 INTEGER: PCESVN, .2.18 OCTET STRING 16: CPUSVN }), .3 PCE-ID (OCTET STRING 2),
//   .4 FMSPC (OCTET STRING 6), .5 SGX Type (ENUMERATED), further optional members (ignored).
// Parsed with OpenSSL's ASN.1 APIs.
#pragma once

#include <openssl/x509.h>

#include <array>
#include <cstdint>

namespace a3s::power::verify::tdx {

struct PckExtensions {
  std::array<uint8_t, 6> fmspc{};
  std::array<uint8_t, 2> pce_id{};
  uint16_t pce_svn = 0;
  std::array<uint8_t, 16> sgx_tcb_components{};  // .2.1 ... .2.16, each 0..255
  std::array<uint8_t, 16> cpu_svn{};
};

// Throws std::runtime_error (naming the member) when the extension is absent or malformed.
PckExtensions parse_pck_extensions(X509* pck_cert);

}  // namespace a3s::power::verify::tdx

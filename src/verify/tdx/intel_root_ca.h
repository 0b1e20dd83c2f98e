// The pinned trust anchor of Intel's SGX/TDX attestation PKI: "Intel SGX Root CA" (ECDSA P-256),
// SHA-256 fingerprint of the DER certificate
// 44:A0:19:6B:2B:99:F8:89:B8:E1:49:E9:5B:80:7A:35:0E:74:24:96:43:99:E8:85:A7:CB:B8:CC:FA:B6:74:D3.
// Shipped as data/intel/sgx-root-ca.pem and compiled into the library.
#pragma once

#include <string_view>

namespace a3s::power::verify::tdx {

// PEM text of the Intel SGX Root CA certificate.
std::string_view intel_sgx_root_ca_pem();

}  // namespace a3s::power::verify::tdx

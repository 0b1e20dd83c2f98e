// TDX verification collateral as Intel PCS serves it, read from a directory (the CLI's
// --collateral DIR).
//
// Files (names as Intel's DCAP sample collateral uses them):
//   tcbInfo.json          TCB Info v3 for the platform's FMSPC (required)
//   qeIdentity.json       TD QE Identity v2 (required)
//   tcbSignChain.pem      TCB Signing certificate, then the root CA (required)
//   rootCaCrl.der         CRL issued by the root CA (optional; DER)
//   intermediateCaCrl.der CRL issued by the PCK Platform/Processor CA (optional; DER)
// When either CRL is present, every certificate of the PCK and TCB signing chains must be covered
// by a CRL of its issuer, so give both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace a3s::power::verify::tdx {

struct TdxCollateral {
  std::string tcb_info_json;     // the whole file, byte for byte (its signature covers raw text)
  std::string qe_identity_json;  // the whole file, byte for byte
  std::string tcb_sign_chain_pem;
  std::vector<std::vector<uint8_t>> crls_der;  // root CA CRL, PCK CA CRL (those present)
};

// Reads the files above from `dir`. Throws std::runtime_error naming the file that is missing or
// unreadable.
TdxCollateral load_tdx_collateral_dir(const std::string& dir);

}  // namespace a3s::power::verify::tdx

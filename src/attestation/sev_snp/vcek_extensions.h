// The AMD-specific X.509 extensions of a VCEK (or VLEK) certificate: the TCB it was issued for, the
// chip it belongs to, and the product name.
//
// Source: AMD "Versioned Chip Endorsement Key (VCEK) Certificate and KDS Interface Specification"
// (57230), VCEK certificate extensions:
//   1.3.6.1.4.1.3704.1.2      productName  IA5String, e.g. "Milan-B0"
//   1.3.6.1.4.1.3704.1.3.1    blSPL        INTEGER (boot loader SPL)
//   1.3.6.1.4.1.3704.1.3.2    teeSPL       INTEGER
//   1.3.6.1.4.1.3704.1.3.3    snpSPL       INTEGER
//   1.3.6.1.4.1.3704.1.3.8    ucodeSPL     INTEGER
//   1.3.6.1.4.1.3704.1.3.9    fmcSPL       INTEGER (Turin certificates only)
//   1.3.6.1.4.1.3704.1.4      hwID         the chip's CHIP_ID, raw bytes (64; 8 on Turin); absent in a VLEK
// The extension value (OCTET STRING contents) holds the DER encoding of the type named above, except
// hwID, whose contents are the raw identifier (a DER OCTET STRING wrapper is also accepted).
#pragma once

#include <openssl/x509.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp {

namespace oids {
inline constexpr const char* kProductName = "1.3.6.1.4.1.3704.1.2";
inline constexpr const char* kBlSpl = "1.3.6.1.4.1.3704.1.3.1";
inline constexpr const char* kTeeSpl = "1.3.6.1.4.1.3704.1.3.2";
inline constexpr const char* kSnpSpl = "1.3.6.1.4.1.3704.1.3.3";
inline constexpr const char* kUcodeSpl = "1.3.6.1.4.1.3704.1.3.8";
inline constexpr const char* kFmcSpl = "1.3.6.1.4.1.3704.1.3.9";
inline constexpr const char* kHwId = "1.3.6.1.4.1.3704.1.4";
}  // namespace oids

struct VcekExtensions {
  TcbVersion tcb;  // fmc stays 0 when the certificate has no fmcSPL
  bool has_fmc = false;
  std::vector<uint8_t> hw_id;  // empty when absent (VLEK)
  std::string product_name;    // empty when absent
};

// Reads the extensions above. Returns std::nullopt, with `error` set to a one-line reason, when a TCB
// extension is missing, not a DER INTEGER, or outside 0..255, or when an extension is duplicated.
std::optional<VcekExtensions> read_vcek_extensions(const X509* cert, std::string& error);

}  // namespace a3s::power::verify::sev_snp

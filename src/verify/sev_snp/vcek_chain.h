// Certificate chain of a VCEK (or VLEK): VCEK → ASK (or ASVK) → ARK, ending at a pinned ARK.
//
// Rules (AMD 57230): the ARK is self-signed and must be byte-for-byte one of the trusted ARKs; the
// ASK / ASVK is signed by the ARK; the VCEK / VLEK is signed by the ASK / ASVK; every certificate is
// valid at the verification time. AMD's ARK and ASK sign with RSASSA-PSS / SHA-384; OpenSSL's chain
// builder (X509_verify_cert) checks signatures, CA constraints and validity periods.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "attestation/sev_snp/amd_roots.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {

enum class ChainStatus {
  kValid,
  kInvalid,  // unparseable certificate, bad signature, unknown or unpinned root, CA rules
  kExpired,     // a certificate (or the CRL) is not valid at `at` (not yet valid or expired)
  kRevoked,     // the ASK or the VCEK is listed in the CRL
  kCrlInvalid,  // the CRL does not parse, or is not issued and signed by the chain's ARK
};

struct ChainCheck {
  ChainStatus status = ChainStatus::kInvalid;
  std::string message;  // one line, names the certificate subject and OpenSSL's reason
};

// Verifies `leaf` up to one of `anchors.arks`. Intermediates: the certificates of `chain` when it is
// non-empty (the ASK / ASVK, optionally followed by the ARK, PEM or DER), otherwise `anchors.asks`.
// A self-issued certificate in `chain` must equal a trusted ARK, and every certificate of `chain` must
// be part of the verified chain. `at` is the verification time
// (seconds since the Unix epoch, UTC).
// `crl` (optional, DER or PEM): AMD's CRL for the product (KDS /vcek/v1/{product}/crl, AMD 57230). When
// given it must be issued by the verified chain's ARK and carry a valid signature by it (kCrlInvalid),
// `at` must lie before its nextUpdate (kExpired), and neither the ASK nor the VCEK may be listed in it
// (kRevoked).
ChainCheck verify_vcek_chain(const X509* leaf, const std::string& chain, const TrustAnchors& anchors,
                             std::time_t at, const std::string& crl = {});

}  // namespace a3s::power::verify::sev_snp

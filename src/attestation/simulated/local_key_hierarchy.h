// A locally generated stand-in for AMD's key hierarchy: an ARK (self-signed), an ASK signed by it, and a
// VCEK signed by the ASK carrying the AMD TCB / hwID / productName extensions (vcek_extensions.h), plus
// report signing with the VCEK key. Used by the simulated evidence provider (src/tee/) and by tests that
// need reports no hardware produced (debug policy, VLEK, Turin layout).
//
// All keys are ECDSA P-384, generated in memory at construction and never written anywhere (AMD's
// ARK/ASK are RSA-PSS; the chain check does not depend on the algorithm). Certificates are valid from one
// year before to ten years after construction. Nothing here chains to AMD: a verifier accepts such a
// report only when this hierarchy's ARK is passed as a trust anchor explicitly.
// Errors: OpenSSL failures throw a3s::power::Error(codes::kInternal).
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attestation/sev_snp/amd_roots.h"
#include "attestation/sev_snp/report.h"
#include "attestation/sev_snp/tcb_version.h"
#include "crypto/openssl.h"

namespace a3s::power::verify::sev_snp {

// Subject names of the generated certificates (O = organization, CN = the *_cn values).
struct HierarchyNames {
  std::string organization = "Local Test AMD";
  std::string ark_cn = "ARK-Local";
  std::string ask_cn = "SEV-Local";
};

// The VCEK (leaf) certificate's contents.
struct LeafSpec {
  TcbVersion tcb{0, 3, 0, 20, 209};
  bool fmc_extension = false;  // add fmcSPL (Turin)
  std::vector<uint8_t> hw_id;  // empty: no hwID extension (a VLEK)
  std::string product_name = "Milan-B0";
  std::string subject_cn = "SEV-VCEK";
};

class LocalKeyHierarchy {
 public:
  explicit LocalKeyHierarchy(const LeafSpec& leaf, const HierarchyNames& names = {});

  std::string ark_pem, ask_pem, vcek_pem;
  std::vector<uint8_t> ark_der, ask_der, vcek_der;
  // This hierarchy's ARK as the only root, its ASK as the intermediate.
  TrustAnchors anchors() const { return {{ark_pem}, {ask_pem}}; }

  // Serialises `report` (sev_snp_report.h) and fills R and S with an ECDSA P-384/SHA-384 signature by
  // the VCEK key over bytes 0x000–0x29F; returns the 1184-byte signed report.
  std::vector<uint8_t> sign(Report report) const;

  // A DER CRL issued and signed by this hierarchy's ARK (as AMD KDS .../crl), revoking the certificates
  // given as DER (their serial numbers), valid from one day ago for `valid_days` days (negative: already
  // past its nextUpdate). `signer_is_ask` signs it with the ASK key instead (a forged CRL).
  std::vector<uint8_t> ark_crl(const std::vector<std::vector<uint8_t>>& revoked, long valid_days = 30,
                               bool signer_is_ask = false) const;

 private:
  crypto::EvpPkeyPtr ark_key_, ask_key_, vcek_key_;  // OpenSSL clears the private keys on free
  std::string ark_subject_der_;  // the ARK's subject name, DER (the CRL issuer)
};

}  // namespace a3s::power::verify::sev_snp

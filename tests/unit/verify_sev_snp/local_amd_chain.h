// A locally generated stand-in for AMD's key hierarchy, for tests that need reports this library did
// not receive from hardware (debug policy, VLEK, Turin layout): an ARK (self-signed), an ASK signed by
// it, and a VCEK signed by the ASK carrying the AMD TCB / hwID / productName extensions. All keys are
// ECDSA P-384 (AMD's ARK/ASK are RSA-PSS; the chain check does not depend on the algorithm).
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "verify/sev_snp/amd_roots.h"
#include "verify/sev_snp/sev_snp_report.h"
#include "verify/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp::testing {

struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

struct LeafSpec {
  TcbVersion tcb{0, 3, 0, 20, 209};
  bool fmc_extension = false;  // add fmcSPL (Turin)
  std::vector<uint8_t> hw_id;  // empty: no hwID extension (a VLEK)
  std::string product_name = "Milan-B0";
  std::string subject_cn = "SEV-VCEK";
};

class LocalAmdChain {
 public:
  explicit LocalAmdChain(const LeafSpec& leaf);

  std::string ark_pem, ask_pem, vcek_pem;
  TrustAnchors anchors() const { return {{ark_pem}, {ask_pem}}; }

  // Serialises `report` and fills R and S with an ECDSA P-384/SHA-384 signature by the VCEK key.
  std::vector<uint8_t> sign(Report report) const;

 private:
  PkeyPtr ark_key_, ask_key_, vcek_key_;
};

}  // namespace a3s::power::verify::sev_snp::testing

// The AMD root certificates this library trusts by default (pinned, shipped in data/amd/ and compiled
// in at build time).
//
// AMD signs every VCEK with a per-product AMD SEV Signing Key (ASK), itself signed by the product's
// AMD Root Key (ARK, self-signed); VLEKs are signed by the AMD SEV VLEK Signing Key (ASVK) under the
// same ARK. Both ARK and ASK use RSASSA-PSS with SHA-384 (AMD 57230, "VCEK Certificate and KDS
// Interface Specification"; KDS endpoint /vcek/v1/{product}/cert_chain).
//
// Shipped: Milan (ARK-Milan, SEV-Milan). Other products (Genoa, Turin) are accepted by passing their
// ARK as a root explicitly (TrustAnchors::arks) and their ASK / ASVK as the certificate chain.
#pragma once

#include <string>
#include <vector>

namespace a3s::power::verify::sev_snp {

struct TrustAnchors {
  std::vector<std::string> arks;  // PEM or DER: the only certificates a chain may end at
  std::vector<std::string> asks;  // PEM or DER: intermediates used when the evidence brings no chain
};

// ARK-Milan and SEV-Milan (the ASK).
TrustAnchors pinned_amd_anchors();

}  // namespace a3s::power::verify::sev_snp

// The AMD root certificates this library trusts by default (pinned: public certificates shipped in
// data/amd/ and compiled in at build time from amd_roots_data.cpp.in).
//
// AMD signs every VCEK with a per-product AMD SEV Signing Key (ASK), itself signed by the product's
// AMD Root Key (ARK, self-signed); VLEKs are signed by the product's AMD SEV VLEK Signing Key (ASVK)
// under the same ARK. ARK, ASK and ASVK use RSASSA-PSS with SHA-384 (AMD 57230, "VCEK Certificate and
// KDS Interface Specification"; KDS endpoints /vcek/v1/{product}/cert_chain and
// /vlek/v1/{product}/cert_chain).
//
// Shipped for Milan, Genoa and Turin (data/amd/README.md lists their SHA-256 fingerprints). A report
// is verified against its own product's ARK only (sev_snp_verify.h, step 3): the ARKs of the other
// products are not trust anchors for it.
#pragma once

#include <string>
#include <vector>

#include "attestation/sev_snp/product.h"

namespace a3s::power::verify::sev_snp {

struct TrustAnchors {
  std::vector<std::string> arks;  // PEM or DER: the only certificates a chain may end at
  std::vector<std::string> asks;  // PEM or DER: intermediates used when the evidence brings no chain
};

// The pinned certificates of one product, PEM.
struct PinnedAmdRoots {
  std::string ark;   // CN=ARK-<product>, self-signed
  std::string ask;   // CN=SEV-<product>, signed by the ARK; issues VCEKs
  std::string asvk;  // CN=SEV-VLEK-<product>, signed by the ARK; issues VLEKs
};

PinnedAmdRoots pinned_amd_roots(AmdProduct product);

// The anchors for a report of `product`: its ARK as the only root and, as the intermediate, its ASK
// (`vlek` false: a VCEK-signed report) or its ASVK (`vlek` true).
TrustAnchors pinned_amd_anchors(AmdProduct product, bool vlek);

// Every pinned ASK and ASVK (all products), PEM: the intermediates offered when the caller trusts a
// root of its own (TrustAnchors::arks replaced) and the evidence brings no chain.
std::vector<std::string> pinned_amd_intermediates();

}  // namespace a3s::power::verify::sev_snp

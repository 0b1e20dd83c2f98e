// AMD Key Distribution Service (KDS) requests for SEV-SNP endorsements.
//
// Source: AMD "Versioned Chip Endorsement Key (VCEK) Certificate and KDS Interface Specification"
// (57230), section "KDS Interface":
//   VCEK:       GET {base}/vcek/v1/{product}/{hwid}?blSPL=NN&teeSPL=NN&snpSPL=NN&ucodeSPL=NN
//               Turin: GET {base}/vcek/v1/Turin/{hwid}?fmcSPL=NN&blSPL=NN&teeSPL=NN&snpSPL=NN&ucodeSPL=NN
//               → the VCEK certificate, DER. {hwid} is the report's CHIP_ID in lowercase hex: all 64
//               bytes for Milan and Genoa, the first 8 bytes for Turin. The SPLs are the report's
//               REPORTED_TCB components, decimal, at least two digits (zero-padded).
//   cert chain: GET {base}/vcek/v1/{product}/cert_chain → ASK then ARK, PEM.
//   CRL:        GET {base}/vcek/v1/{product}/crl → the ARK's CRL (revoked ASKs), DER.
// {product}: "Milan" (CPUID family 0x19, models 0x00–0x0F, and every version 2 report, which carries
// no CPUID), "Genoa" (family 0x19, models 0x10–0x1F and 0xA0–0xAF), "Turin" (family 0x1A).
// base defaults to https://kdsintf.amd.com.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attestation/sev_snp/product.h"
#include "attestation/sev_snp/report.h"
#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::online {

inline constexpr const char* kDefaultKdsUrl = "https://kdsintf.amd.com";

// The product names and CPUID rule live with the report format (attestation/sev_snp/product.h).
using sev_snp::AmdProduct;
using sev_snp::product_name;

struct VcekRequest {
  AmdProduct product = AmdProduct::kMilan;
  std::vector<uint8_t> hwid;  // 64 bytes (Milan, Genoa) or 8 bytes (Turin)
  sev_snp::TcbVersion tcb;    // REPORTED_TCB
};

// The KDS product of a report (see above; version 2 reports: Milan). Throws Error "invalid_argument" for an unknown CPUID family /
// model.
AmdProduct product_for(const sev_snp::Report& report);

// The request for the VCEK that signs `report`. Throws a3s::power::Error "invalid_argument" when no
// VCEK can be fetched for it: signed with a VLEK (KDS serves VLEKs to cloud providers only), CHIP_ID
// masked (all zero; MASK_CHIP_ID), or an unknown CPUID family / model.
VcekRequest vcek_request_for(const sev_snp::Report& report);

// "/vcek/v1/Milan/<hwid hex>?blSPL=03&teeSPL=00&snpSPL=08&ucodeSPL=115" (the form above).
std::string vcek_path(const VcekRequest& request);
// "/vcek/v1/Milan/cert_chain", "/vcek/v1/Milan/crl".
std::string cert_chain_path(AmdProduct product);
std::string crl_path(AmdProduct product);

}  // namespace a3s::power::verify::online

// AMD EPYC processor generations that run SEV-SNP, as named by AMD KDS and by the productName
// extension of a VCEK / VLEK (AMD 57230, "VCEK Certificate and KDS Interface Specification").
//
// A report names its product through its CPUID fields (SEV-SNP ABI spec 56860, Table 23
// ATTESTATION_REPORT, CPUID_FAM_ID / CPUID_MOD_ID at 0x188–0x189, report version 3 and later):
//   Milan: family 0x19, models 0x00–0x0F
//   Genoa: family 0x19, models 0x10–0x1F and 0xA0–0xAF
//   Turin: family 0x1A (any model)
// Version 2 reports carry no CPUID: their product is not stated by the report.
// A certificate names it by its productName ("Milan-B0", "Genoa", "Turin-C1": the product, then
// optionally '-' and the stepping).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace a3s::power::verify::sev_snp {

enum class AmdProduct { kMilan, kGenoa, kTurin };

// "Milan", "Genoa", "Turin" (the KDS spelling).
std::string_view product_name(AmdProduct product);

// The product of a CPUID family / model pair (table above); std::nullopt for any other pair.
std::optional<AmdProduct> product_from_cpuid(uint8_t family, uint8_t model);

// The product a certificate's productName names: the text before the first '-' (or all of it) is
// exactly "Milan", "Genoa" or "Turin"; std::nullopt otherwise (also for an empty name).
std::optional<AmdProduct> product_from_certificate_name(std::string_view product_name);

}  // namespace a3s::power::verify::sev_snp

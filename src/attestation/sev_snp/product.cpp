#include "attestation/sev_snp/product.h"

#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp {
namespace {

constexpr uint8_t kFamilyMilanGenoa = 0x19;

}  // namespace

std::string_view product_name(AmdProduct product) {
  switch (product) {
    case AmdProduct::kMilan:
      return "Milan";
    case AmdProduct::kGenoa:
      return "Genoa";
    case AmdProduct::kTurin:
      return "Turin";
  }
  return "Milan";
}

std::optional<AmdProduct> product_from_cpuid(uint8_t family, uint8_t model) {
  if (family == kFamilyTurin) return AmdProduct::kTurin;
  if (family != kFamilyMilanGenoa) return std::nullopt;
  if ((model >= 0x10 && model <= 0x1F) || (model >= 0xA0 && model <= 0xAF)) return AmdProduct::kGenoa;
  if (model <= 0x0F) return AmdProduct::kMilan;
  return std::nullopt;
}

std::optional<AmdProduct> product_from_certificate_name(std::string_view name) {
  const std::string_view base = name.substr(0, name.find('-'));
  for (AmdProduct p : {AmdProduct::kMilan, AmdProduct::kGenoa, AmdProduct::kTurin})
    if (base == product_name(p)) return p;
  return std::nullopt;
}

}  // namespace a3s::power::verify::sev_snp

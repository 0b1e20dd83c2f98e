// Evidence type detection from the bytes (see a3s/power/verify.h for the rules and their sources).
#include <cstddef>

#include "a3s/power/verify.h"

namespace a3s::power::verify {
namespace {

constexpr size_t kSnpReportSize = 1184;  // 56860 ATTESTATION_REPORT (0x4A0)
constexpr uint32_t kSnpMinVersion = 2, kSnpMaxVersion = 5;
constexpr uint32_t kTdxTeeType = 0x81;  // Quote Header TEE type, DCAP quote v4 / v5

uint32_t le32(std::span<const uint8_t> b, size_t off) {
  return uint32_t(b[off]) | uint32_t(b[off + 1]) << 8 | uint32_t(b[off + 2]) << 16 |
         uint32_t(b[off + 3]) << 24;
}

}  // namespace

std::string_view to_string(TeeType tee) {
  switch (tee) {
    case TeeType::kSevSnp:
      return "sev-snp";
    case TeeType::kTdx:
      return "tdx";
    case TeeType::kUnknown:
      break;
  }
  return "unknown";
}

TeeType detect_tee_type(std::span<const uint8_t> evidence) {
  if (evidence.size() == kSnpReportSize) {
    const uint32_t version = le32(evidence, 0);
    if (version >= kSnpMinVersion && version <= kSnpMaxVersion) return TeeType::kSevSnp;
  }
  if (evidence.size() >= 8) {
    const uint16_t version = uint16_t(evidence[0] | evidence[1] << 8);
    if ((version == 4 || version == 5) && le32(evidence, 4) == kTdxTeeType) return TeeType::kTdx;
  }
  return TeeType::kUnknown;
}

}  // namespace a3s::power::verify

#include "attestation/sev_snp/report.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "a3s/power/error.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::sev_snp {
namespace {

// Byte offsets of ATTESTATION_REPORT fields (56860, ATTESTATION_REPORT structure).
namespace off {
constexpr size_t kVersion = 0x000, kGuestSvn = 0x004, kPolicy = 0x008, kFamilyId = 0x010, kImageId = 0x020,
                 kVmpl = 0x030, kSignatureAlgo = 0x034, kCurrentTcb = 0x038, kPlatformInfo = 0x040,
                 kKeyFlags = 0x048, kReportData = 0x050, kMeasurement = 0x090, kHostData = 0x0C0,
                 kIdKeyDigest = 0x0E0, kAuthorKeyDigest = 0x110, kReportId = 0x140, kReportIdMa = 0x160,
                 kReportedTcb = 0x180, kCpuidFamId = 0x188, kCpuidModId = 0x189, kCpuidStep = 0x18A,
                 kChipId = 0x1A0, kCommittedTcb = 0x1E0, kCurrentBuild = 0x1E8, kCurrentMinor = 0x1E9,
                 kCurrentMajor = 0x1EA, kCommittedBuild = 0x1EC, kCommittedMinor = 0x1ED,
                 kCommittedMajor = 0x1EE, kLaunchTcb = 0x1F0, kLaunchMitVector = 0x1F8,
                 kCurrentMitVector = 0x200, kSignatureR = 0x2A0, kSignatureS = 0x2E8;
}  // namespace off

// Word at 0x48: bit 0 AUTHOR_KEY_EN, bit 1 MASK_CHIP_KEY, bits 4:2 SIGNING_KEY.
constexpr uint32_t kAuthorKeyEnBit = 1u << 0;
constexpr uint32_t kMaskChipKeyBit = 1u << 1;
constexpr int kSigningKeyShift = 2;
constexpr uint32_t kSigningKeyMask = 0x7;

struct Reader {
  std::span<const uint8_t> bytes;
  template <class T>
  void operator()(size_t offset, T& value) const {
    if constexpr (std::is_integral_v<T>) {
      value = 0;
      for (size_t i = 0; i < sizeof(T); ++i)
        value |= static_cast<T>(static_cast<T>(bytes[offset + i]) << (8 * i));
    } else {
      std::memcpy(value.data(), bytes.data() + offset, value.size());
    }
  }
};

struct Writer {
  std::span<uint8_t> bytes;
  template <class T>
  void operator()(size_t offset, const T& value) const {
    if constexpr (std::is_integral_v<T>) {
      for (size_t i = 0; i < sizeof(T); ++i) bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
    } else {
      std::memcpy(bytes.data() + offset, value.data(), value.size());
    }
  }
};

// Visits every field the report's version defines, in layout order. R is Report or const Report;
// `key_flags` is the word at 0x48 (split into its bits by the caller).
template <class R, class Visit>
void for_each_field(R& r, uint32_t version, uint32_t& key_flags, const Visit& f) {
  f(off::kVersion, r.version);
  f(off::kGuestSvn, r.guest_svn);
  f(off::kPolicy, r.policy);
  f(off::kFamilyId, r.family_id);
  f(off::kImageId, r.image_id);
  f(off::kVmpl, r.vmpl);
  f(off::kSignatureAlgo, r.signature_algo);
  f(off::kCurrentTcb, r.current_tcb);
  f(off::kPlatformInfo, r.platform_info);
  f(off::kKeyFlags, key_flags);
  f(off::kReportData, r.report_data);
  f(off::kMeasurement, r.measurement);
  f(off::kHostData, r.host_data);
  f(off::kIdKeyDigest, r.id_key_digest);
  f(off::kAuthorKeyDigest, r.author_key_digest);
  f(off::kReportId, r.report_id);
  f(off::kReportIdMa, r.report_id_ma);
  f(off::kReportedTcb, r.reported_tcb);
  if (version >= 3) {
    f(off::kCpuidFamId, r.cpuid_fam_id);
    f(off::kCpuidModId, r.cpuid_mod_id);
    f(off::kCpuidStep, r.cpuid_step);
  }
  f(off::kChipId, r.chip_id);
  f(off::kCommittedTcb, r.committed_tcb);
  f(off::kCurrentBuild, r.current_build);
  f(off::kCurrentMinor, r.current_minor);
  f(off::kCurrentMajor, r.current_major);
  f(off::kCommittedBuild, r.committed_build);
  f(off::kCommittedMinor, r.committed_minor);
  f(off::kCommittedMajor, r.committed_major);
  f(off::kLaunchTcb, r.launch_tcb);
  if (version >= 4) {
    f(off::kLaunchMitVector, r.launch_mit_vector);
    f(off::kCurrentMitVector, r.current_mit_vector);
  }
  f(off::kSignatureR, r.signature_r);
  f(off::kSignatureS, r.signature_s);
}

void check_version(uint32_t version) {
  if (version < kMinVersion || version > kMaxVersion)
    throw Error(codes::kUnsupportedVersion,
                "SEV-SNP report version " + std::to_string(version) + " is not supported (expected 2 to 5)");
}

}  // namespace

Report parse_report(std::span<const uint8_t> bytes) {
  if (bytes.size() != kReportSize)
    throw Error(codes::kMalformedEvidence, "SEV-SNP report is " + std::to_string(bytes.size()) +
                                               " bytes, expected exactly 1184 (0x4A0)");
  Report r;
  const Reader read{bytes};
  read(off::kVersion, r.version);
  check_version(r.version);
  uint32_t key_flags = 0;
  for_each_field(r, r.version, key_flags, read);
  r.author_key_en = (key_flags & kAuthorKeyEnBit) != 0;
  r.mask_chip_key = (key_flags & kMaskChipKeyBit) != 0;
  r.signing_key = static_cast<uint8_t>((key_flags >> kSigningKeyShift) & kSigningKeyMask);
  return r;
}

std::vector<uint8_t> serialize_report(const Report& r) {
  check_version(r.version);
  std::vector<uint8_t> out(kReportSize, 0);
  uint32_t key_flags = (r.author_key_en ? kAuthorKeyEnBit : 0) | (r.mask_chip_key ? kMaskChipKeyBit : 0) |
                       ((static_cast<uint32_t>(r.signing_key) & kSigningKeyMask) << kSigningKeyShift);
  for_each_field(r, r.version, key_flags, Writer{out});
  return out;
}

std::span<const uint8_t> signed_region(std::span<const uint8_t> bytes) {
  if (bytes.size() < kSignedRegionSize)
    throw Error(codes::kMalformedEvidence, "SEV-SNP report is shorter than its signed region (0x2A0 bytes)");
  return bytes.first(kSignedRegionSize);
}

}  // namespace a3s::power::verify::sev_snp

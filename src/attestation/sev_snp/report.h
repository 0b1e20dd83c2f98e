// The SEV-SNP ATTESTATION_REPORT: parsing and serialisation of the 1184-byte (0x4A0) structure that
// the AMD secure processor signs for a guest (MSG_REPORT_RSP body, configfs-tsm outblob).
//
// Source: AMD "SEV Secure Nested Paging Firmware ABI Specification" (56860), ATTESTATION_REPORT
// structure (table "ATTESTATION_REPORT Structure"), and the signature format (ECDSA P-384 with
// SHA-384: R and S as 72-byte little-endian integers). Versions 2 to 5 are accepted:
//   v2: the base layout.   v3: adds CPUID_FAM_ID / CPUID_MOD_ID / CPUID_STEP at 0x188–0x18A.
//   v4: as v3.             v5 (ABI rev 1.58): LAUNCH_MIT_VECTOR (0x1F8), CURRENT_MIT_VECTOR (0x200).
// The mitigation vectors are read and written from v4 on: some v4 firmware fills them, and where the
// bytes are reserved they are zero, which reads as a zero vector.
// All multi-byte integers are little-endian. The signature covers bytes 0x000–0x29F.
//
// Errors: parse_report throws a3s::power::Error with code "malformed_evidence" (size is not exactly
// 1184 bytes) or "unsupported_version" (VERSION outside 2..5); never reads out of bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp {

inline constexpr size_t kReportSize = 0x4A0;           // bytes
inline constexpr size_t kSignedRegionSize = 0x2A0;     // bytes 0x000–0x29F are signed
inline constexpr size_t kSignatureOffset = 0x2A0;      // SIGNATURE: R (72) | S (72) | reserved (368)
inline constexpr size_t kSignatureComponentSize = 72;  // bytes per little-endian R / S field
inline constexpr uint32_t kMinVersion = 2;
inline constexpr uint32_t kMaxVersion = 5;
inline constexpr uint32_t kSignatureAlgoEcdsaP384Sha384 = 1;

// GUEST_POLICY bits (56860, "Guest Policy Structure").
namespace policy_bits {
inline constexpr uint64_t kSmt = 1ull << 16;  // SMT allowed
inline constexpr uint64_t kReservedMustBeOne = 1ull << 17;
inline constexpr uint64_t kMigrateMa = 1ull << 18;  // migration agent allowed
inline constexpr uint64_t kDebug = 1ull << 19;      // host may debug the guest: reject
inline constexpr uint64_t kSingleSocket = 1ull << 20;
inline constexpr uint64_t kCxlAllow = 1ull << 21;
inline constexpr uint64_t kMemAes256Xts = 1ull << 22;
inline constexpr uint64_t kRaplDis = 1ull << 23;
inline constexpr uint64_t kCiphertextHiding = 1ull << 24;
inline constexpr uint64_t kPageSwapDisable = 1ull << 25;
}  // namespace policy_bits

// SIGNING_KEY values (bits 4:2 of the word at 0x48).
enum class SigningKey : uint8_t { kVcek = 0, kVlek = 1, kNone = 7 };

using ReportData = std::array<uint8_t, 64>;
using Measurement = std::array<uint8_t, 48>;  // SHA-384 launch digest
using ChipId = std::array<uint8_t, 64>;

struct Report {
  uint32_t version = kMaxVersion;
  uint32_t guest_svn = 0;
  uint64_t policy = policy_bits::kReservedMustBeOne;  // GUEST_POLICY
  std::array<uint8_t, 16> family_id{};
  std::array<uint8_t, 16> image_id{};
  uint32_t vmpl = 0;
  uint32_t signature_algo = kSignatureAlgoEcdsaP384Sha384;
  uint64_t current_tcb = 0;    // TCB_VERSION, see tcb_version.h
  uint64_t platform_info = 0;  // bit 0 SMT_EN, 1 TSME_EN, 2 ECC_EN, 3 RAPL_DIS, 4 CIPHERTEXT_HIDING_EN,
                               // 5 ALIAS_CHECK_COMPLETE, 7 TIO_EN
  bool author_key_en = false;  // 0x48 bit 0
  bool mask_chip_key = false;  // 0x48 bit 1: CHIP_ID is zero
  uint8_t signing_key = 0;     // 0x48 bits 4:2, see SigningKey
  ReportData report_data{};
  Measurement measurement{};
  std::array<uint8_t, 32> host_data{};
  std::array<uint8_t, 48> id_key_digest{};
  std::array<uint8_t, 48> author_key_digest{};
  std::array<uint8_t, 32> report_id{};
  std::array<uint8_t, 32> report_id_ma{};
  uint64_t reported_tcb = 0;  // the TCB the VCEK that signs this report is issued for
  uint8_t cpuid_fam_id = 0;   // v3+; 0 in v2
  uint8_t cpuid_mod_id = 0;   // v3+
  uint8_t cpuid_step = 0;     // v3+
  ChipId chip_id{};
  uint64_t committed_tcb = 0;
  uint8_t current_build = 0, current_minor = 0, current_major = 0;
  uint8_t committed_build = 0, committed_minor = 0, committed_major = 0;
  uint64_t launch_tcb = 0;
  uint64_t launch_mit_vector = 0;                              // v4+ (see above)
  uint64_t current_mit_vector = 0;                             // v4+
  std::array<uint8_t, kSignatureComponentSize> signature_r{};  // little-endian
  std::array<uint8_t, kSignatureComponentSize> signature_s{};  // little-endian

  bool debug_allowed() const { return (policy & policy_bits::kDebug) != 0; }
  TcbLayout tcb_layout() const { return tcb_layout_for(version, cpuid_fam_id); }
  TcbVersion reported() const { return decode_tcb(reported_tcb, tcb_layout()); }
  TcbVersion current() const { return decode_tcb(current_tcb, tcb_layout()); }
  TcbVersion committed() const { return decode_tcb(committed_tcb, tcb_layout()); }
  TcbVersion launch() const { return decode_tcb(launch_tcb, tcb_layout()); }
};

// Parses exactly kReportSize bytes. Reserved bytes are not interpreted (nor rejected: they are covered
// by the signature). Fields a version does not define (CPUID before v3, mitigation vectors before v4)
// parse as zero.
Report parse_report(std::span<const uint8_t> bytes);

// The kReportSize-byte encoding of `report`: every field at its offset, reserved bytes zero, fields
// the report's version does not define left zero. serialize_report(parse_report(x)) == x for every
// report whose reserved bytes are zero (all firmware to date). Throws unsupported_version like parse.
std::vector<uint8_t> serialize_report(const Report& report);

// Bytes 0x000–0x29F of an encoded report (the part the signature covers). `bytes` must hold at least
// kSignedRegionSize bytes; throws malformed_evidence otherwise.
std::span<const uint8_t> signed_region(std::span<const uint8_t> bytes);

}  // namespace a3s::power::verify::sev_snp

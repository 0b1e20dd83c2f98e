// SEV-SNP TCB_VERSION: the 64-bit security version of the firmware components that an attestation
// report carries (CURRENT_TCB, REPORTED_TCB, COMMITTED_TCB, LAUNCH_TCB) and that a VCEK is issued for.
//
// Source: AMD "SEV Secure Nested Paging Firmware ABI Specification" (56860), TCB_VERSION structure.
// Two byte layouts exist (little-endian 64-bit value, byte 0 = least significant):
//   Milan / Genoa (CPUID family 0x19): byte 0 BOOT_LOADER, 1 TEE, 2–5 reserved, 6 SNP, 7 MICROCODE.
//   Turin (CPUID family 0x1A):         byte 0 FMC, 1 BOOT_LOADER, 2 TEE, 3 SNP, 4–6 reserved, 7 MICROCODE.
// Each component is a security patch level (SPL), an unsigned 8-bit number.
#pragma once

#include <cstdint>
#include <string>

namespace a3s::power::verify::sev_snp {

enum class TcbLayout {
  kMilanGenoa,  // family 0x19 (and every report before version 3, which carries no CPUID family)
  kTurin,       // family 0x1A: adds the FMC (firmware mask ROM / first mutable code) SPL
};

// CPUID family of Turin-generation processors.
inline constexpr uint8_t kFamilyTurin = 0x1A;

// The layout a report uses: by CPUID family when the report has one (version 3 and later),
// otherwise the Milan/Genoa layout.
TcbLayout tcb_layout_for(uint32_t report_version, uint8_t cpuid_family);

struct TcbVersion {
  uint8_t fmc = 0;  // Turin only; always 0 in the Milan/Genoa layout
  uint8_t boot_loader = 0;
  uint8_t tee = 0;
  uint8_t snp = 0;
  uint8_t microcode = 0;

  bool operator==(const TcbVersion&) const = default;
};

// Decode / encode the 64-bit TCB_VERSION value. Reserved bytes decode to nothing and encode as zero.
TcbVersion decode_tcb(uint64_t raw, TcbLayout layout);
uint64_t encode_tcb(const TcbVersion& tcb, TcbLayout layout);

// True when every component of `tcb` is at least the same component of `minimum` (SPLs are not
// ordered as a single number: a higher microcode does not make up for an older SNP firmware).
bool tcb_at_least(const TcbVersion& tcb, const TcbVersion& minimum);

// "fmc=… bl=… tee=… snp=… ucode=…" (decimal), for messages. The fmc part only for the Turin layout.
std::string to_string(const TcbVersion& tcb, TcbLayout layout);

}  // namespace a3s::power::verify::sev_snp

#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp {
namespace {

uint8_t byte_at(uint64_t raw, int index) {
  return static_cast<uint8_t>(raw >> (8 * index));
}
uint64_t at_byte(uint8_t value, int index) {
  return static_cast<uint64_t>(value) << (8 * index);
}

}  // namespace

TcbLayout tcb_layout_for(uint32_t report_version, uint8_t cpuid_family) {
  if (report_version >= 3 && cpuid_family == kFamilyTurin) return TcbLayout::kTurin;
  return TcbLayout::kMilanGenoa;
}

TcbVersion decode_tcb(uint64_t raw, TcbLayout layout) {
  TcbVersion t;
  if (layout == TcbLayout::kTurin) {
    t.fmc = byte_at(raw, 0);
    t.boot_loader = byte_at(raw, 1);
    t.tee = byte_at(raw, 2);
    t.snp = byte_at(raw, 3);
  } else {
    t.boot_loader = byte_at(raw, 0);
    t.tee = byte_at(raw, 1);
    t.snp = byte_at(raw, 6);
  }
  t.microcode = byte_at(raw, 7);
  return t;
}

uint64_t encode_tcb(const TcbVersion& t, TcbLayout layout) {
  if (layout == TcbLayout::kTurin)
    return at_byte(t.fmc, 0) | at_byte(t.boot_loader, 1) | at_byte(t.tee, 2) | at_byte(t.snp, 3) |
           at_byte(t.microcode, 7);
  return at_byte(t.boot_loader, 0) | at_byte(t.tee, 1) | at_byte(t.snp, 6) | at_byte(t.microcode, 7);
}

bool tcb_at_least(const TcbVersion& t, const TcbVersion& m) {
  return t.fmc >= m.fmc && t.boot_loader >= m.boot_loader && t.tee >= m.tee && t.snp >= m.snp &&
         t.microcode >= m.microcode;
}

std::string to_string(const TcbVersion& t, TcbLayout layout) {
  std::string s;
  if (layout == TcbLayout::kTurin) s += "fmc=" + std::to_string(t.fmc) + " ";
  s += "bl=" + std::to_string(t.boot_loader) + " tee=" + std::to_string(t.tee) +
       " snp=" + std::to_string(t.snp) + " ucode=" + std::to_string(t.microcode);
  return s;
}

}  // namespace a3s::power::verify::sev_snp

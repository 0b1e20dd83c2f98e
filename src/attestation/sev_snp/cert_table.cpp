#include "attestation/sev_snp/cert_table.h"

#include <algorithm>
#include <array>

namespace a3s::power::verify::sev_snp {
namespace {

using Guid = std::array<uint8_t, 16>;

constexpr size_t kEntrySize = 24;
constexpr size_t kMaxEntries = 64;  // far more than any host sends; bounds the scan

constexpr Guid kVcekGuid = {0x63, 0xda, 0x75, 0x8d, 0xe6, 0x64, 0x45, 0x64,
                            0xad, 0xc5, 0xf4, 0xb9, 0x3b, 0xe8, 0xac, 0xcd};
constexpr Guid kVlekGuid = {0xa8, 0x07, 0x4b, 0xc2, 0xa2, 0x5a, 0x48, 0x3e,
                            0xaa, 0xe6, 0x39, 0xc0, 0x45, 0xa0, 0xb8, 0xa1};
constexpr Guid kAskGuid = {0x4a, 0xb7, 0xb3, 0x79, 0xbb, 0xac, 0x4f, 0xe4,
                           0xa0, 0x2f, 0x05, 0xae, 0xf3, 0x27, 0xc7, 0x82};
constexpr Guid kArkGuid = {0xc0, 0xb4, 0x06, 0xa4, 0xa8, 0x03, 0x49, 0x52,
                           0x97, 0x43, 0x3f, 0xb6, 0x01, 0x4c, 0xd0, 0xae};

uint32_t read_u32(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint32_t>(b[at]) | static_cast<uint32_t>(b[at + 1]) << 8 |
         static_cast<uint32_t>(b[at + 2]) << 16 | static_cast<uint32_t>(b[at + 3]) << 24;
}

void write_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::string* slot_for(CertTable& t, const Guid& g) {
  if (g == kVcekGuid) return &t.vcek;
  if (g == kVlekGuid) return &t.vlek;
  if (g == kAskGuid) return &t.ask;
  if (g == kArkGuid) return &t.ark;
  return nullptr;
}

}  // namespace

std::optional<CertTable> parse_cert_table(std::span<const uint8_t> bytes, std::string& error) {
  CertTable table;
  for (size_t i = 0; i < kMaxEntries; ++i) {
    const size_t at = i * kEntrySize;
    if (at + kEntrySize > bytes.size()) {
      error = "certificate table has no terminating all-zero entry";
      return std::nullopt;
    }
    const auto entry = bytes.subspan(at, kEntrySize);
    if (std::all_of(entry.begin(), entry.end(), [](uint8_t b) { return b == 0; })) return table;
    Guid guid;
    std::copy_n(entry.begin(), guid.size(), guid.begin());
    const uint64_t offset = read_u32(entry, 16);
    const uint64_t length = read_u32(entry, 20);
    if (length == 0 || offset + length > bytes.size()) {
      error = "certificate table entry " + std::to_string(i) + " points outside the table";
      return std::nullopt;
    }
    std::string* slot = slot_for(table, guid);
    if (slot == nullptr) continue;
    if (!slot->empty()) {
      error = "certificate table repeats entry " + std::to_string(i);
      return std::nullopt;
    }
    slot->assign(reinterpret_cast<const char*>(bytes.data() + offset), static_cast<size_t>(length));
  }
  error = "certificate table has more than 64 entries";
  return std::nullopt;
}

std::vector<uint8_t> serialize_cert_table(const CertTable& table) {
  const std::pair<const Guid*, const std::string*> entries[] = {
      {&kVcekGuid, &table.vcek}, {&kVlekGuid, &table.vlek}, {&kAskGuid, &table.ask}, {&kArkGuid, &table.ark}};
  size_t count = 0;
  for (const auto& [guid, der] : entries) count += der->empty() ? 0 : 1;
  std::vector<uint8_t> out;
  size_t offset = (count + 1) * kEntrySize;
  for (const auto& [guid, der] : entries) {
    if (der->empty()) continue;
    out.insert(out.end(), guid->begin(), guid->end());
    write_u32(out, static_cast<uint32_t>(offset));
    write_u32(out, static_cast<uint32_t>(der->size()));
    offset += der->size();
  }
  out.resize(out.size() + kEntrySize, 0);  // terminator
  for (const auto& [guid, der] : entries) out.insert(out.end(), der->begin(), der->end());
  return out;
}

}  // namespace a3s::power::verify::sev_snp

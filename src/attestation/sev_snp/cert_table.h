// The SEV-SNP certificate table a host attaches to an extended attestation report: the VCEK (or VLEK),
// ASK and ARK as DER certificates, so a verifier needs no access to AMD's KDS.
//
// Source: AMD "SEV-ES Guest-Hypervisor Communication Block Standardization" (56421), SNP Extended Guest
// Request, certificate table; Linux `include/uapi/linux/sev-guest.h` (SNP_GET_EXT_REPORT certs buffer)
// and configfs-tsm `auxblob`. Layout: entries of 24 bytes — GUID (16 bytes, in the byte order of its
// text form), offset (u32 LE, from the start of the table), length (u32 LE) — ended by an all-zero
// entry; the certificates follow. GUIDs:
//   VCEK 63da758d-e664-4564-adc5-f4b93be8accd   VLEK a8074bc2-a25a-483e-aae6-39c045a0b8a1
//   ASK  4ab7b379-bbac-4fe4-a02f-05aef327c782   ARK  c0b406a4-a803-4952-9743-3fb6014cd0ae
// Entries with other GUIDs are skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>


namespace a3s::power::verify::sev_snp {

struct CertTable {
  std::string vcek, vlek, ask, ark;  // DER bytes; empty when the table has no such entry
};

// Parses a certificate table. Returns std::nullopt, with `error` set, when the table has no terminator,
// an entry points outside the buffer, or a known GUID appears twice.
std::optional<CertTable> parse_cert_table(std::span<const uint8_t> bytes, std::string& error);

// Encodes a table holding the non-empty members of `table` (entries VCEK, VLEK, ASK, ARK, terminator,
// then the certificates in that order).
std::vector<uint8_t> serialize_cert_table(const CertTable& table);

}  // namespace a3s::power::verify::sev_snp

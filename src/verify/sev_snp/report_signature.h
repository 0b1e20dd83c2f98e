// The signature of an SEV-SNP attestation report: ECDSA P-384 with SHA-384 over bytes 0x000–0x29F,
// made with the VCEK (or VLEK) private key.
//
// Source: AMD 56860, ATTESTATION_REPORT SIGNATURE field and "ECDSA P-384 with SHA-384 Signature"
// format: R at 0x2A0 and S at 0x2E8, each a 72-byte little-endian integer of which P-384 uses the low
// 48 bytes (the upper 24 must be zero); bytes 0x330–0x49F are reserved (zero).
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace a3s::power::verify::sev_snp {

// DER ECDSA-Sig-Value (SEQUENCE { r INTEGER, s INTEGER }) from the little-endian R and S fields.
// Returns empty if a component is wider than 48 bytes (non-zero upper bytes).
std::vector<uint8_t> ecdsa_sig_der_from_le(std::span<const uint8_t> r_le, std::span<const uint8_t> s_le);

// Verifies the signature of a full kReportSize-byte report with `key`, which must be an EC P-384 public
// key. Returns true when valid; otherwise false with `error` set (wrong key type, non-zero upper or
// reserved bytes, bad signature).
bool verify_report_signature(std::span<const uint8_t> report, EVP_PKEY* key, std::string& error);

}  // namespace a3s::power::verify::sev_snp

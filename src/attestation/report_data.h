// The 64-byte report_data A3S Power binds into every piece of evidence (SEV-SNP REPORT_DATA, TDX
// REPORTDATA):
//
//   report_data = nonce (32 bytes, chosen by the client) || SHA-256(canonical claims JSON) (32 bytes)
//
// The client sends the nonce as 64 hex characters; it checks the first half against its nonce (freshness)
// and the second half against the SHA-256 of the claims it received (see claims.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "crypto/sha256.h"

namespace a3s::power::tee {

inline constexpr size_t kNonceSize = 32;       // bytes
inline constexpr size_t kReportDataSize = 64;  // bytes

using Nonce = std::array<uint8_t, kNonceSize>;
using ReportData = std::array<uint8_t, kReportDataSize>;

// Parses exactly 64 hex characters (0-9, a-f, A-F) into 32 bytes. Anything else (other length, sign,
// whitespace, "0x" prefix) throws a3s::power::Error(codes::kInvalidArgument); the message never echoes the
// input.
Nonce parse_nonce(std::string_view hex);

// nonce || claims_digest.
ReportData make_report_data(const Nonce& nonce, const crypto::Sha256Digest& claims_digest);

}  // namespace a3s::power::tee

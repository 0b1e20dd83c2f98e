#include "attestation/report_data.h"

#include <algorithm>

#include "a3s/power/error.h"

namespace a3s::power::tee {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Nonce parse_nonce(std::string_view hex) {
  if (hex.size() != 2 * kNonceSize)
    throw Error(codes::kInvalidArgument, "nonce must be 64 hex characters (32 bytes)");
  Nonce nonce{};
  for (size_t i = 0; i < kNonceSize; ++i) {
    const int hi = hex_value(hex[2 * i]);
    const int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw Error(codes::kInvalidArgument, "nonce must be 64 hex characters (32 bytes)");
    nonce[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return nonce;
}

ReportData make_report_data(const Nonce& nonce, const crypto::Sha256Digest& claims_digest) {
  ReportData out{};
  std::copy(nonce.begin(), nonce.end(), out.begin());
  std::copy(claims_digest.begin(), claims_digest.end(), out.begin() + kNonceSize);
  return out;
}

}  // namespace a3s::power::tee

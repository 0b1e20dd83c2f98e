#include "attestation/report_data.h"

#include <algorithm>

#include "a3s/power/error.h"
#include "base/hex.h"

namespace a3s::power::tee {
Nonce parse_nonce(std::string_view hex) {
  Nonce nonce{};
  if (!decode_hex(hex, nonce)) throw Error(codes::kInvalidArgument, "nonce must be 64 hex characters (32 bytes)");
  return nonce;
}

ReportData make_report_data(const Nonce& nonce, const crypto::Sha256Digest& claims_digest) {
  ReportData out{};
  std::copy(nonce.begin(), nonce.end(), out.begin());
  std::copy(claims_digest.begin(), claims_digest.end(), out.begin() + kNonceSize);
  return out;
}

}  // namespace a3s::power::tee

#include "verify/sev_snp/report_signature.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>

#include <algorithm>

#include "attestation/sev_snp/report.h"
#include "crypto/openssl.h"

namespace a3s::power::verify::sev_snp {
namespace {

constexpr size_t kP384Bytes = 48;
constexpr size_t kSignatureReservedOffset = kSignatureOffset + 2 * kSignatureComponentSize;  // 0x330

bool all_zero(std::span<const uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

bool is_p384(EVP_PKEY* key) {
  if (key == nullptr || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return false;
  char group[64] = {};
  size_t len = 0;
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), &len) != 1)
    return false;
  return OBJ_sn2nid(group) == NID_secp384r1 || OBJ_ln2nid(group) == NID_secp384r1 ||
         std::string(group) == "P-384";
}

}  // namespace

std::vector<uint8_t> ecdsa_sig_der_from_le(std::span<const uint8_t> r_le, std::span<const uint8_t> s_le) {
  if (r_le.size() < kP384Bytes || s_le.size() < kP384Bytes) return {};
  if (!all_zero(r_le.subspan(kP384Bytes)) || !all_zero(s_le.subspan(kP384Bytes))) return {};
  BIGNUM* r = BN_lebin2bn(r_le.data(), static_cast<int>(kP384Bytes), nullptr);
  BIGNUM* s = BN_lebin2bn(s_le.data(), static_cast<int>(kP384Bytes), nullptr);
  crypto::EcdsaSigPtr sig(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || !sig || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return {};
  }
  // r and s now belong to sig.
  const int n = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (n <= 0) return {};
  std::vector<uint8_t> der(static_cast<size_t>(n));
  unsigned char* p = der.data();
  if (i2d_ECDSA_SIG(sig.get(), &p) != n) return {};
  return der;
}

bool verify_report_signature(std::span<const uint8_t> report, EVP_PKEY* key, std::string& error) {
  if (report.size() != kReportSize) {
    error = "report is not 1184 bytes";
    return false;
  }
  if (!is_p384(key)) {
    error = "the certificate key is not an ECDSA P-384 key";
    return false;
  }
  const auto r = report.subspan(kSignatureOffset, kSignatureComponentSize);
  const auto s = report.subspan(kSignatureOffset + kSignatureComponentSize, kSignatureComponentSize);
  const std::vector<uint8_t> der = ecdsa_sig_der_from_le(r, s);
  if (der.empty()) {
    error = "signature R or S has non-zero bytes above the low 48 (P-384)";
    return false;
  }
  if (!all_zero(report.subspan(kSignatureReservedOffset))) {
    error = "reserved signature bytes 0x330-0x49F are not zero";
    return false;
  }
  crypto::EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  const auto signed_bytes = report.first(kSignedRegionSize);
  const bool ok =
      ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha384(), nullptr, key) == 1 &&
      EVP_DigestVerify(ctx.get(), der.data(), der.size(), signed_bytes.data(), signed_bytes.size()) == 1;
  ERR_clear_error();
  if (!ok)
    error = "ECDSA P-384/SHA-384 signature over bytes 0x000-0x29F does not verify with the certificate key";
  return ok;
}

}  // namespace a3s::power::verify::sev_snp

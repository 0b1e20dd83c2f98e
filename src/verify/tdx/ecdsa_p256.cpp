#include "verify/tdx/ecdsa_p256.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>

#include <array>

namespace a3s::power::verify::tdx {

crypto::EvpPkeyPtr p256_public_key(std::span<const uint8_t> xy) {
  if (xy.size() != 64) return nullptr;
  std::array<unsigned char, 65> point{};
  point[0] = 0x04;
  std::copy(xy.begin(), xy.end(), point.begin() + 1);
  char group[] = "prime256v1";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()),
      OSSL_PARAM_construct_end()};
  crypto::EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) return nullptr;
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params) != 1) return nullptr;
  crypto::EvpPkeyPtr key(raw);
  // fromdata does not always validate the point; check it is on the curve.
  crypto::EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return nullptr;
  return key;
}

bool ecdsa_p256_verify(EVP_PKEY* key, std::span<const uint8_t> message, std::span<const uint8_t> signature) {
  if (key == nullptr || signature.size() != 64) return false;
  crypto::EcdsaSigPtr sig(ECDSA_SIG_new());
  crypto::BignumPtr r(BN_bin2bn(signature.data(), 32, nullptr));
  crypto::BignumPtr s(BN_bin2bn(signature.data() + 32, 32, nullptr));
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return false;
  r.release();  // owned by sig now
  s.release();
  unsigned char* der = nullptr;
  int der_len = i2d_ECDSA_SIG(sig.get(), &der);
  if (der_len <= 0) return false;
  const crypto::OpensslBytesPtr der_owner(der);

  crypto::EvpMdCtxPtr md(EVP_MD_CTX_new());
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1) return false;
  return EVP_DigestVerify(md.get(), der, static_cast<size_t>(der_len), message.data(), message.size()) == 1;
}

}  // namespace a3s::power::verify::tdx

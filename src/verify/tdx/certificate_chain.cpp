#include "verify/tdx/certificate_chain.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <cstring>
#include <stdexcept>

namespace a3s::power::verify::tdx {

std::vector<crypto::X509Ptr> parse_pem_certificates(std::span<const uint8_t> pem) {
  std::vector<crypto::X509Ptr> certs;
  std::string_view text(reinterpret_cast<const char*>(pem.data()), pem.size());
  const std::string_view begin = "-----BEGIN CERTIFICATE-----";
  const std::string_view end = "-----END CERTIFICATE-----";
  size_t pos = 0;
  while ((pos = text.find("-----BEGIN", pos)) != std::string_view::npos) {
    if (text.compare(pos, begin.size(), begin) != 0) {
      throw std::runtime_error("PEM block at byte " + std::to_string(pos) + " is not a CERTIFICATE");
    }
    size_t stop = text.find(end, pos);
    if (stop == std::string_view::npos) {
      throw std::runtime_error("PEM certificate at byte " + std::to_string(pos) + " has no END line");
    }
    stop += end.size();
    crypto::BioPtr bio(BIO_new_mem_buf(text.data() + pos, static_cast<int>(stop - pos)));
    crypto::X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!cert) {
      ERR_clear_error();
      throw std::runtime_error("PEM certificate at byte " + std::to_string(pos) + " does not decode");
    }
    certs.push_back(std::move(cert));
    pos = stop;
  }
  if (certs.empty()) throw std::runtime_error("no PEM certificate found");
  return certs;
}

crypto::X509CrlPtr parse_der_crl(std::span<const uint8_t> der) {
  const unsigned char* p = der.data();
  crypto::X509CrlPtr crl(d2i_X509_CRL(nullptr, &p, static_cast<long>(der.size())));
  if (!crl || p != der.data() + der.size()) {
    ERR_clear_error();
    throw std::runtime_error("not a DER certificate revocation list");
  }
  return crl;
}

std::string subject_of(X509* cert) {
  if (cert == nullptr) return "(none)";
  char buf[256] = {0};
  X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof buf);
  return buf;
}

VerifyResult check_tcb_signing_role(X509* cert, X509* root) {
  auto refuse = [&](const std::string& why) {
    return VerifyResult::fail(steps::kCollateralInvalid, "TCB signing chain: " + subject_of(cert) +
                                                             " is not Intel's TCB Signing certificate: " + why);
  };
  if (cert == nullptr || root == nullptr) return refuse("no certificate");
  X509_NAME* subject = X509_get_subject_name(cert);
  const int cn_at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (cn_at < 0 || X509_NAME_get_index_by_NID(subject, NID_commonName, cn_at) >= 0)
    return refuse("its subject does not have exactly one CN");
  const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, cn_at));
  const std::string_view want = kTcbSigningCommonName;
  if (cn == nullptr || static_cast<size_t>(ASN1_STRING_length(cn)) != want.size() ||
      std::memcmp(ASN1_STRING_get0_data(cn), want.data(), want.size()) != 0)
    return refuse(std::string("its CN is not \"") + kTcbSigningCommonName + "\"");
  if (X509_check_ca(cert) != 0) return refuse("it is a CA certificate");
  if (X509_check_issued(root, cert) != X509_V_OK) return refuse("it is not issued directly by the trusted root");
  return VerifyResult::ok();
}

VerifyResult verify_certificate_chain(X509* leaf, const std::vector<X509*>& intermediates, X509* root,
                                      const std::vector<X509_CRL*>& crls, std::time_t at,
                                      const std::string& what) {
  if (leaf == nullptr || root == nullptr) {
    return VerifyResult::fail(steps::kChainInvalid, what + ": no certificate or no root");
  }
  for (X509* c : intermediates) {
    bool self_signed = X509_check_issued(c, c) == X509_V_OK;
    if (self_signed && X509_cmp(c, root) != 0) {
      return VerifyResult::fail(steps::kChainInvalid,
                                what + ": carries root " + subject_of(c) + " which is not the trusted root");
    }
  }
  if (X509_check_issued(leaf, leaf) == X509_V_OK) {
    return VerifyResult::fail(steps::kChainInvalid, what + ": leaf " + subject_of(leaf) + " is self-signed");
  }

  crypto::X509StorePtr store(X509_STORE_new());
  crypto::X509StackPtr untrusted(sk_X509_new_null());
  crypto::X509StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!store || !untrusted || !ctx || X509_STORE_add_cert(store.get(), root) != 1) {
    return VerifyResult::fail(steps::kChainInvalid, what + ": cannot set up verification");
  }
  for (X509* c : intermediates) {
    if (X509_cmp(c, root) == 0) continue;  // the trust anchor comes from the store only
    sk_X509_push(untrusted.get(), c);
  }
  for (X509_CRL* crl : crls) X509_STORE_add_crl(store.get(), crl);
  if (X509_STORE_CTX_init(ctx.get(), store.get(), leaf, untrusted.get()) != 1) {
    return VerifyResult::fail(steps::kChainInvalid, what + ": cannot set up verification");
  }
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  unsigned long flags = X509_V_FLAG_X509_STRICT;
  if (!crls.empty()) flags |= X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL;
  X509_VERIFY_PARAM_set_flags(param, flags);
  X509_VERIFY_PARAM_set_time(param, at);

  int ok = X509_verify_cert(ctx.get());
  ERR_clear_error();
  if (ok == 1) {
    // Every certificate given must be part of the verified chain: a stray or altered copy that
    // OpenSSL merely skipped is still a chain that does not verify as given.
    STACK_OF(X509)* built = X509_STORE_CTX_get0_chain(ctx.get());
    for (X509* c : intermediates) {
      bool used = X509_cmp(c, root) == 0;
      for (int i = 0; built != nullptr && !used && i < sk_X509_num(built); ++i) {
        used = X509_cmp(c, sk_X509_value(built, i)) == 0;
      }
      if (!used) {
        return VerifyResult::fail(steps::kChainInvalid, what + ": certificate " + subject_of(c) +
                                                            " is not part of the verified chain");
      }
    }
    return VerifyResult::ok();
  }
  int err = X509_STORE_CTX_get_error(ctx.get());
  int depth = X509_STORE_CTX_get_error_depth(ctx.get());
  X509* bad = X509_STORE_CTX_get_current_cert(ctx.get());
  std::string msg = what + ": " + X509_verify_cert_error_string(err) + " at depth " + std::to_string(depth) +
                    " (" + subject_of(bad) + ")";
  switch (err) {
    case X509_V_ERR_CERT_REVOKED:
      return VerifyResult::fail(steps::kRevoked, msg);
    case X509_V_ERR_CRL_HAS_EXPIRED:
    case X509_V_ERR_CRL_NOT_YET_VALID:
      return VerifyResult::fail(steps::kCollateralExpired, msg);
    case X509_V_ERR_UNABLE_TO_GET_CRL:
    case X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER:
    case X509_V_ERR_CRL_SIGNATURE_FAILURE:
    case X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE:
    case X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD:
    case X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD:
      return VerifyResult::fail(steps::kCollateralInvalid, msg);
    default:
      return VerifyResult::fail(steps::kChainInvalid, msg);
  }
}

}  // namespace a3s::power::verify::tdx

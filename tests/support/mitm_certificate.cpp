#include "support/mitm_certificate.h"

#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include <stdexcept>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::testing {

MitmIdentity mitm_identity(X509* genuine, bool copy_evidence) {
  MitmIdentity m;
  m.key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384"));
  m.certificate.reset(X509_new());
  X509* cert = m.certificate.get();
  if (!m.key || cert == nullptr) throw std::runtime_error("mitm: OpenSSL allocation failed");
  X509_set_version(cert, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 4242);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(tee::kRatlsCommonName), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_set_pubkey(cert, m.key.get());
  if (copy_evidence) {
    ASN1_OBJECT* oid = OBJ_txt2obj(verify::kRatlsEvidenceOid, 1);
    const int index = X509_get_ext_by_OBJ(genuine, oid, -1);
    ASN1_OBJECT_free(oid);
    if (index < 0) throw std::runtime_error("mitm: the genuine certificate has no evidence extension");
    X509_add_ext(cert, X509_get_ext(genuine, index), -1);
  }
  if (X509_sign(cert, m.key.get(), EVP_sha384()) <= 0) throw std::runtime_error("mitm: X509_sign failed");
  return m;
}

}  // namespace a3s::power::testing

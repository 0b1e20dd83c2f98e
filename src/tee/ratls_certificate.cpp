#include "tee/ratls_certificate.h"

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include "a3s/power/error.h"
#include "attestation/ratls_extension.h"

namespace a3s::power::tee {
namespace {

[[noreturn]] void openssl_failed(const char* what) {
  throw Error(codes::kInternal, std::string("RA-TLS certificate: ") + what + " failed");
}

void check(int rc, const char* what) {
  if (rc != 1) openssl_failed(what);
}

void add_standard_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  crypto::X509ExtensionPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext) openssl_failed("X509V3_EXT_conf_nid");
  check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

// extnValue = DER OCTET STRING { json }.
void add_evidence_extension(X509* cert, const std::string& json) {
  crypto::Asn1ObjectPtr oid(OBJ_txt2obj(attestation::kRatlsEvidenceOid, 1));
  if (!oid) openssl_failed("OBJ_txt2obj");
  crypto::Asn1OctetStringPtr inner(ASN1_OCTET_STRING_new());
  if (!inner) openssl_failed("ASN1_OCTET_STRING_new");
  check(ASN1_OCTET_STRING_set(inner.get(), reinterpret_cast<const unsigned char*>(json.data()),
                              static_cast<int>(json.size())),
        "ASN1_OCTET_STRING_set");
  unsigned char* der = nullptr;
  const int n = i2d_ASN1_OCTET_STRING(inner.get(), &der);
  if (n <= 0) openssl_failed("i2d_ASN1_OCTET_STRING");
  crypto::Asn1OctetStringPtr outer(ASN1_OCTET_STRING_new());
  const int set = outer ? ASN1_OCTET_STRING_set(outer.get(), der, n) : 0;
  OPENSSL_free(der);
  check(set, "ASN1_OCTET_STRING_set");
  crypto::X509ExtensionPtr ext(
      X509_EXTENSION_create_by_OBJ(nullptr, oid.get(), /*critical=*/0, outer.get()));
  if (!ext) openssl_failed("X509_EXTENSION_create_by_OBJ");
  check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

}  // namespace

crypto::Sha256Digest spki_sha256(X509* certificate) {
  unsigned char* der = nullptr;
  const int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(certificate), &der);
  if (n <= 0) openssl_failed("i2d_X509_PUBKEY");
  const crypto::Sha256Digest digest = crypto::sha256({der, static_cast<size_t>(n)});
  OPENSSL_free(der);
  return digest;
}

std::string certificate_der(X509* certificate) {
  unsigned char* der = nullptr;
  const int n = i2d_X509(certificate, &der);
  if (n <= 0) openssl_failed("i2d_X509");
  std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return out;
}

RatlsCertificate issue_ratls_certificate(std::chrono::seconds lifetime,
                                         const RatlsEvidenceSource& evidence_for) {
  if (lifetime.count() < 1)
    throw Error(codes::kInvalidArgument, "the RA-TLS certificate lifetime must be >= 1 s");
  RatlsCertificate out;
  out.key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384"));
  if (!out.key) openssl_failed("EC P-384 key generation");
  out.certificate.reset(X509_new());
  X509* cert = out.certificate.get();
  if (cert == nullptr) openssl_failed("X509_new");
  check(X509_set_version(cert, X509_VERSION_3), "X509_set_version");

  crypto::BignumPtr serial(BN_new());
  if (!serial) openssl_failed("BN_new");
  check(BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY), "BN_rand");  // 127 bits: positive
  if (BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) == nullptr)
    openssl_failed("serial number");

  out.issued_at = std::chrono::system_clock::now();
  out.not_after = out.issued_at + lifetime;
  std::time_t now = std::chrono::system_clock::to_time_t(out.issued_at);
  if (X509_time_adj_ex(X509_getm_notBefore(cert), 0, -60, &now) == nullptr) openssl_failed("notBefore");
  const long days = static_cast<long>(lifetime.count() / 86400);
  const long seconds = static_cast<long>(lifetime.count() % 86400);
  if (X509_time_adj_ex(X509_getm_notAfter(cert), static_cast<int>(days), seconds, &now) == nullptr)
    openssl_failed("notAfter");

  X509_NAME* name = X509_get_subject_name(cert);
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(kRatlsCommonName), -1, -1, 0),
        "X509_NAME_add_entry_by_txt");
  check(X509_set_issuer_name(cert, name), "X509_set_issuer_name");
  check(X509_set_pubkey(cert, out.key.get()), "X509_set_pubkey");

  add_standard_extension(cert, NID_basic_constraints, "critical,CA:FALSE");
  add_standard_extension(cert, NID_key_usage, "critical,digitalSignature");
  add_standard_extension(cert, NID_ext_key_usage, "serverAuth");
  out.spki_sha256 = spki_sha256(cert);
  add_evidence_extension(cert, evidence_for(out.spki_sha256));
  if (X509_sign(cert, out.key.get(), EVP_sha384()) <= 0) openssl_failed("X509_sign");
  return out;
}

}  // namespace a3s::power::tee

// verify_ratls_certificate: an RA-TLS certificate's evidence extension checked against the
// certificate's own key (a3s/power/verify_attestation.h, docs/ra-tls.md).
#include <openssl/asn1.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <string_view>

#include "a3s/power/verify_attestation.h"
#include "attestation/ratls_extension.h"
#include "crypto/openssl.h"
#include "base/hex.h"
#include "verify/attestation/verify_response.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify {

static_assert(std::string_view(kRatlsEvidenceOid) == std::string_view(::a3s::power::attestation::kRatlsEvidenceOid),
              "the public RA-TLS OID is the one the server writes");

namespace {

crypto::X509Ptr parse_der(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  crypto::X509Ptr cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (cert && p != reinterpret_cast<const unsigned char*>(der.data()) + der.size())
    cert.reset();  // trailing bytes
  return cert;
}

std::optional<Sha256> spki_digest(X509* cert) {
  unsigned char* der = nullptr;
  const int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
  if (n <= 0) return std::nullopt;
  Sha256 digest{};
  unsigned int size = 0;
  const bool ok = EVP_Digest(der, static_cast<size_t>(n), digest.data(), &size, EVP_sha256(), nullptr) == 1 &&
                  size == digest.size();
  OPENSSL_free(der);
  if (!ok) return std::nullopt;
  return digest;
}

AttestationResult fail(AttestationResult r, const char* step, std::string message) {
  r.checks.push_back({"certificate", false, message});
  r.accepted = false;
  r.failed_step = step;
  r.message = std::move(message);
  return r;
}

}  // namespace

std::optional<Sha256> certificate_spki_sha256(std::string_view certificate_der) {
  crypto::X509Ptr cert = parse_der(certificate_der);
  if (!cert) return std::nullopt;
  return spki_digest(cert.get());
}

AttestationResult verify_ratls_certificate(std::string_view certificate_der,
                                           const AttestationPolicy& policy) {
  AttestationResult r;
  r.tcb_status = "unknown";
  // a. A certificate signed by its own key.
  crypto::X509Ptr cert = parse_der(certificate_der);
  if (!cert) return fail(std::move(r), steps::kRatlsCertificateInvalid, "the certificate is not DER X.509");
  EVP_PKEY* key = X509_get0_pubkey(cert.get());
  if (key == nullptr || X509_verify(cert.get(), key) != 1)
    return fail(std::move(r), steps::kRatlsCertificateInvalid,
                "the certificate is not signed by its own key");
  const auto spki = spki_digest(cert.get());
  if (!spki)
    return fail(std::move(r), steps::kRatlsCertificateInvalid,
                "the certificate's public key cannot be encoded");

  // b. Validity period.
  std::time_t now = policy.at.value_or(std::time(nullptr));
  if (X509_cmp_time(X509_get0_notBefore(cert.get()), &now) >= 0 ||
      X509_cmp_time(X509_get0_notAfter(cert.get()), &now) <= 0)
    return fail(std::move(r), steps::kRatlsCertificateExpired,
                "the certificate is outside its validity period");

  // c. The evidence extension.
  crypto::Asn1ObjectPtr oid(OBJ_txt2obj(kRatlsEvidenceOid, 1));
  if (!oid) return fail(std::move(r), steps::kRatlsCertificateInvalid, "the evidence OID cannot be encoded");
  const int index = X509_get_ext_by_OBJ(cert.get(), oid.get(), -1);
  if (index < 0)
    return fail(std::move(r), steps::kRatlsExtensionMissing,
                std::string("the certificate has no RA-TLS evidence extension (") + kRatlsEvidenceOid + ")");
  if (X509_get_ext_by_OBJ(cert.get(), oid.get(), index) >= 0)
    return fail(std::move(r), steps::kRatlsCertificateInvalid,
                "the certificate has two RA-TLS evidence extensions");
  const ASN1_OCTET_STRING* value = X509_EXTENSION_get_data(X509_get_ext(cert.get(), index));
  const unsigned char* p = ASN1_STRING_get0_data(value);
  const unsigned char* end = p + ASN1_STRING_length(value);
  crypto::Asn1OctetStringPtr body(
      d2i_ASN1_OCTET_STRING(nullptr, &p, ASN1_STRING_length(value)));
  if (!body || p != end)
    return fail(std::move(r), steps::kRatlsExtensionMissing,
                "the RA-TLS evidence extension is not a DER OCTET STRING");
  const std::string_view json(reinterpret_cast<const char*>(ASN1_STRING_get0_data(body.get())),
                              static_cast<size_t>(ASN1_STRING_length(body.get())));
  const std::string detail = "self-signed, within its validity, SPKI SHA-256 " + to_hex(*spki);

  // d. The evidence binds this certificate's key (claims.tls.spki_sha256 and the nonce).
  AttestationPolicy p2 = policy;
  p2.tls_spki_sha256 = *spki;
  AttestationResult verdict =
      attestation::verify_response(json, *spki, p2, /*check_model=*/!policy.model.empty());
  verdict.checks.insert(verdict.checks.begin(), AttestationCheck{"certificate", true, detail});
  return verdict;
}

}  // namespace a3s::power::verify

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

// The contents of the certificate's one RA-TLS evidence extension (a view into `cert`); std::nullopt with
// `step` / `message` otherwise.
std::optional<std::string_view> evidence_extension(X509* cert, std::string& step, std::string& message) {
  crypto::Asn1ObjectPtr oid(OBJ_txt2obj(kRatlsEvidenceOid, 1));
  if (!oid) {
    step = steps::kRatlsCertificateInvalid;
    message = "the evidence OID cannot be encoded";
    return std::nullopt;
  }
  const int index = X509_get_ext_by_OBJ(cert, oid.get(), -1);
  if (index < 0) {
    step = steps::kRatlsExtensionMissing;
    message = std::string("the certificate has no RA-TLS evidence extension (") + kRatlsEvidenceOid + ")";
    return std::nullopt;
  }
  if (X509_get_ext_by_OBJ(cert, oid.get(), index) >= 0) {
    step = steps::kRatlsCertificateInvalid;
    message = "the certificate has two RA-TLS evidence extensions";
    return std::nullopt;
  }
  const ASN1_OCTET_STRING* value = X509_EXTENSION_get_data(X509_get_ext(cert, index));
  const unsigned char* p = ASN1_STRING_get0_data(value);
  const unsigned char* end = p + ASN1_STRING_length(value);
  // The inner OCTET STRING's contents lie inside the extension value: a view into `cert`.
  crypto::Asn1OctetStringPtr body(d2i_ASN1_OCTET_STRING(nullptr, &p, ASN1_STRING_length(value)));
  if (!body || p != end) {
    step = steps::kRatlsExtensionMissing;
    message = "the RA-TLS evidence extension is not a DER OCTET STRING";
    return std::nullopt;
  }
  const auto length = static_cast<size_t>(ASN1_STRING_length(body.get()));
  return std::string_view(reinterpret_cast<const char*>(end) - length, length);
}

AttestationResult fail(AttestationResult r, const char* step, std::string message) {
  r.checks.push_back({"certificate", false, message});
  r.accepted = false;
  r.failed_step = step;
  r.message = std::move(message);
  return r;
}

}  // namespace

std::optional<std::string> ratls_certificate_response(std::string_view certificate_der) {
  crypto::X509Ptr cert = parse_der(certificate_der);
  if (!cert) return std::nullopt;
  std::string step, message;
  const auto json = evidence_extension(cert.get(), step, message);
  if (!json) return std::nullopt;
  return std::string(*json);
}

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
  std::string step, message;
  const std::optional<std::string_view> json = evidence_extension(cert.get(), step, message);
  if (!json) return fail(std::move(r), step.c_str(), message);
  const std::string detail = "self-signed, within its validity, SPKI SHA-256 " + to_hex(*spki);

  // d. The evidence binds this certificate's key (claims.tls.spki_sha256 and the nonce).
  AttestationPolicy p2 = policy;
  p2.tls_spki_sha256 = *spki;
  AttestationResult verdict =
      attestation::verify_response(*json, &*spki, p2, /*check_model=*/!policy.model.empty());
  verdict.checks.insert(verdict.checks.begin(), AttestationCheck{"certificate", true, detail});
  return verdict;
}

}  // namespace a3s::power::verify

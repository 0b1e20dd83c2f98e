// RA-TLS server identity made inside the TEE (docs/ra-tls.md): a fresh ECDSA P-384 key (OpenSSL EVP,
// in memory only, never written anywhere) and a self-signed X.509 v3 certificate for it whose
// non-critical extension kRatlsEvidenceOid (attestation/ratls_extension.h) holds attestation
// evidence binding the certificate's SubjectPublicKeyInfo:
//
//   version 3, serial = 16 random bytes (positive), subject = issuer = CN "A3S Power RA-TLS",
//   notBefore = now - 60 s, notAfter = now + lifetime, signature ecdsa-with-SHA384,
//   basicConstraints CA:FALSE (critical), keyUsage digitalSignature (critical), extendedKeyUsage
//   serverAuth, and the evidence extension: extnValue = DER OCTET STRING { UTF-8 JSON body }.
//
// The JSON body comes from `evidence_for(spki_sha256)`: the caller makes a GET /v1/attestation
// response whose claims.nonce and claims.tls.spki_sha256 are that digest (server/ratls_identity.h).
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <chrono>
#include <functional>
#include <string>

#include "crypto/openssl.h"
#include "crypto/sha256.h"

namespace a3s::power::tee {

inline constexpr const char* kRatlsCommonName = "A3S Power RA-TLS";

struct RatlsCertificate {
  crypto::EvpPkeyPtr key;  // the private key (ECDSA P-384); OpenSSL clears EC private keys on free
  crypto::X509Ptr certificate;
  crypto::Sha256Digest spki_sha256{};  // SHA-256 of the certificate's DER SubjectPublicKeyInfo
  std::chrono::system_clock::time_point issued_at;
  std::chrono::system_clock::time_point not_after;  // issued_at + lifetime
};

// The evidence JSON for a key, by the SHA-256 of its DER SubjectPublicKeyInfo.
using RatlsEvidenceSource = std::function<std::string(const crypto::Sha256Digest& spki_sha256)>;

// A new key and certificate. `lifetime` is at least one second. Throws Error(codes::kInternal) when
// OpenSSL fails, and whatever `evidence_for` throws (e.g. Error(codes::kAttestationFailed)).
RatlsCertificate issue_ratls_certificate(std::chrono::seconds lifetime,
                                         const RatlsEvidenceSource& evidence_for);

// SHA-256 of the DER SubjectPublicKeyInfo of `certificate`. Throws Error(codes::kInternal).
crypto::Sha256Digest spki_sha256(X509* certificate);

// DER of `certificate`. Throws Error(codes::kInternal).
std::string certificate_der(X509* certificate);

}  // namespace a3s::power::tee

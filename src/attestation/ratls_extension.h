// The RA-TLS evidence extension of an X.509 certificate (docs/ra-tls.md): a non-critical extension
// whose extnValue is a DER OCTET STRING holding the UTF-8 JSON body of a GET /v1/attestation response.
// The server writes it (tee/ratls_certificate.h) and the verifier reads it
// (verify/attestation/ratls_certificate.cpp); the public verifier header names the same OID
// (a3s::power::verify::kRatlsEvidenceOid, checked equal at compile time there).
#pragma once

namespace a3s::power::attestation {

// A UUID-derived OID (ITU-T X.667, arc 2.25).
inline constexpr const char* kRatlsEvidenceOid = "2.25.5018800965966951311172586507678435311";

}  // namespace a3s::power::attestation

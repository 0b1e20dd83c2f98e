// Certificates a man in the middle could present for RA-TLS tests: a fresh ECDSA P-384 key and a
// self-signed certificate that copies (or leaves out) a genuine certificate's RA-TLS evidence
// extension.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "crypto/openssl.h"
#include "tee/ratls_certificate.h"

namespace a3s::power::testing {

struct MitmIdentity {
  crypto::EvpPkeyPtr key;
  crypto::X509Ptr certificate;
};

// A new key and a self-signed certificate for it (CN "A3S Power RA-TLS", valid for a day) carrying
// `genuine`'s evidence extension when copy_evidence is true, no evidence extension otherwise.
MitmIdentity mitm_identity(X509* genuine, bool copy_evidence);

}  // namespace a3s::power::testing

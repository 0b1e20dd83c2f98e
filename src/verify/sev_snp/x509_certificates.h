// X.509 certificates as OpenSSL objects with RAII ownership, loaded from PEM or DER bytes.
//
// Input shapes: PEM (one or more "-----BEGIN CERTIFICATE-----" blocks, any text around them is
// ignored) or DER (one certificate, or several concatenated). The format is detected from the bytes:
// input containing "-----BEGIN" is PEM, anything else is DER.
#pragma once

#include <openssl/x509.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/openssl.h"

namespace a3s::power::verify::sev_snp {

// All certificates in `bytes`. Returns std::nullopt if the input is empty, holds no certificate, or
// any part of it does not parse (no partial results: a corrupted chain is rejected as a whole).
std::optional<std::vector<crypto::X509Ptr>> load_certificates(std::string_view bytes);

// Exactly one certificate; std::nullopt otherwise.
crypto::X509Ptr load_certificate(std::string_view bytes);

// DER encoding of `cert` (empty on failure).
std::string to_der(const X509* cert);

// "CN=…" of the subject, or the one-line subject when there is no CN (for messages).
std::string subject_name(const X509* cert);

// Subject equals issuer (a root candidate).
bool self_issued(const X509* cert);

}  // namespace a3s::power::verify::sev_snp

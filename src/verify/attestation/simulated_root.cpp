#include "verify/attestation/simulated_root.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <optional>
#include <string_view>

#include "a3s/power/verify_attestation.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::attestation {
namespace {

// The single Organization of `name`; nullopt when there is none or more than one.
std::optional<std::string> organization(const X509_NAME* name) {
  const int at = X509_NAME_get_index_by_NID(name, NID_organizationName, -1);
  if (at < 0 || X509_NAME_get_index_by_NID(name, NID_organizationName, at) >= 0) return std::nullopt;
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, at));
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                     static_cast<size_t>(ASN1_STRING_length(data)));
}

}  // namespace

bool is_simulated_root(const std::string& der, std::string& why) {
  const crypto::X509Ptr cert = sev_snp::load_certificate(der);
  if (!cert) {
    why = "the certificate table's ARK does not parse as one certificate";
    return false;
  }
  const std::string subject = sev_snp::subject_name(cert.get());
  if (organization(X509_get_subject_name(cert.get())) != std::string(kSimulatedOrganization)) {
    why = "the certificate table's ARK (" + subject + ") is not labelled O=" + kSimulatedOrganization +
          "; a response may bring only a simulated root";
    return false;
  }
  EVP_PKEY* key = X509_get0_pubkey(cert.get());
  const bool self_signed =
      sev_snp::self_issued(cert.get()) && key != nullptr && X509_verify(cert.get(), key) == 1;
  ERR_clear_error();
  if (!self_signed) {
    why = "the certificate table's ARK (" + subject + ") is not self-signed";
    return false;
  }
  return true;
}

}  // namespace a3s::power::verify::attestation

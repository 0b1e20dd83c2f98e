#include "verify/sev_snp/x509_certificates.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

namespace a3s::power::verify::sev_snp {
namespace {

std::optional<std::vector<crypto::X509Ptr>> load_pem(std::string_view bytes) {
  ERR_clear_error();
  crypto::BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  if (!bio) return std::nullopt;
  std::vector<crypto::X509Ptr> certs;
  for (;;) {
    crypto::X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    certs.push_back(std::move(cert));
  }
  // The loop ends at the end of input (PEM_R_NO_START_LINE) or at a block that does not parse.
  const unsigned long err = ERR_peek_last_error();
  const bool clean_end = ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE;
  ERR_clear_error();
  if (!clean_end || certs.empty()) return std::nullopt;
  return certs;
}

std::optional<std::vector<crypto::X509Ptr>> load_der(std::string_view bytes) {
  std::vector<crypto::X509Ptr> certs;
  auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    crypto::X509Ptr cert(d2i_X509(nullptr, &p, static_cast<long>(end - p)));
    if (!cert) {
      ERR_clear_error();
      return std::nullopt;
    }
    certs.push_back(std::move(cert));
  }
  if (certs.empty()) return std::nullopt;
  return certs;
}

}  // namespace

std::optional<std::vector<crypto::X509Ptr>> load_certificates(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > (1u << 24)) return std::nullopt;
  if (bytes.find("-----BEGIN") != std::string_view::npos) return load_pem(bytes);
  return load_der(bytes);
}

crypto::X509Ptr load_certificate(std::string_view bytes) {
  auto certs = load_certificates(bytes);
  if (!certs || certs->size() != 1) return nullptr;
  return std::move(certs->front());
}

std::string to_der(const X509* cert) {
  unsigned char* der = nullptr;
  const int n = i2d_X509(cert, &der);
  if (n <= 0) return {};
  std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
  return out;
}

std::string subject_name(const X509* cert) {
  const X509_NAME* name = X509_get_subject_name(cert);
  char buf[256] = {};
  if (X509_NAME_get_text_by_NID(const_cast<X509_NAME*>(name), NID_commonName, buf, sizeof(buf)) > 0)
    return std::string("CN=") + buf;
  char* line = X509_NAME_oneline(name, nullptr, 0);
  std::string s = line ? line : "(unnamed)";
  OPENSSL_free(line);
  return s;
}

bool self_issued(const X509* cert) {
  return X509_NAME_cmp(X509_get_subject_name(cert), X509_get_issuer_name(cert)) == 0;
}

}  // namespace a3s::power::verify::sev_snp

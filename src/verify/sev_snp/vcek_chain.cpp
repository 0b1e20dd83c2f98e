#include "verify/sev_snp/vcek_chain.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>

#include "crypto/openssl.h"

namespace a3s::power::verify::sev_snp {
namespace {

ChainCheck invalid(std::string message) {
  return {ChainStatus::kInvalid, std::move(message)};
}

// All certificates from a list of PEM/DER texts; false if any fails to parse.
bool load_all(const std::vector<std::string>& texts, std::vector<crypto::X509Ptr>& out) {
  for (const auto& text : texts) {
    auto certs = load_certificates(text);
    if (!certs) return false;
    for (auto& c : *certs) out.push_back(std::move(c));
  }
  return true;
}

crypto::X509CrlPtr load_crl(const std::string& bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  crypto::X509CrlPtr crl(d2i_X509_CRL(nullptr, &p, static_cast<long>(bytes.size())));
  if (crl && p == reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size()) return crl;
  crypto::BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  crl.reset(bio ? PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  ERR_clear_error();
  return crl;
}

// The CRL against the verified chain VCEK (0) → ASK (1) → ARK (2).
ChainCheck check_crl(const std::string& bytes, STACK_OF(X509) * built, std::time_t at) {
  const crypto::X509CrlPtr crl = load_crl(bytes);
  if (!crl) return {ChainStatus::kCrlInvalid, "the AMD CRL does not parse as DER or PEM"};
  X509* ark = sk_X509_value(built, 2);
  if (X509_NAME_cmp(X509_CRL_get_issuer(crl.get()), X509_get_subject_name(ark)) != 0)
    return {ChainStatus::kCrlInvalid, "the AMD CRL is not issued by " + subject_name(ark)};
  const int verified = X509_CRL_verify(crl.get(), X509_get0_pubkey(ark));
  ERR_clear_error();
  if (verified != 1) return {ChainStatus::kCrlInvalid, "the AMD CRL's signature does not verify with " + subject_name(ark)};
  const ASN1_TIME* next = X509_CRL_get0_nextUpdate(crl.get());
  if (next != nullptr && X509_cmp_time(next, &at) <= 0)
    return {ChainStatus::kExpired, "the AMD CRL is past its nextUpdate at the verification time"};
  // By serial number: the ARK's CRL lists ASKs (issued by the ARK) and may list VCEKs (issued by an ASK,
  // so an issuer-matching lookup would never find them).
  for (int i = 0; i < 2; ++i) {
    X509_REVOKED* entry = nullptr;
    if (X509_CRL_get0_by_serial(crl.get(), &entry, X509_get0_serialNumber(sk_X509_value(built, i))) == 1)
      return {ChainStatus::kRevoked, subject_name(sk_X509_value(built, i)) + " is revoked by the AMD CRL"};
  }
  return {ChainStatus::kValid, {}};
}

}  // namespace

ChainCheck verify_vcek_chain(const X509* leaf, const std::string& chain, const TrustAnchors& anchors,
                             std::time_t at, const std::string& crl) {
  std::vector<crypto::X509Ptr> arks;
  if (!load_all(anchors.arks, arks) || arks.empty()) return invalid("no usable trusted ARK certificate");
  std::vector<crypto::X509Ptr> intermediates;
  if (!chain.empty()) {
    auto certs = load_certificates(chain);
    if (!certs) return invalid("the certificate chain (ASK / ARK) does not parse as PEM or DER");
    intermediates = std::move(*certs);
  } else if (!load_all(anchors.asks, intermediates)) {
    return invalid("a pinned ASK certificate does not parse");
  }
  // A root carried by the evidence must be one of ours, byte for byte.
  std::vector<std::string> ark_ders;
  for (const auto& ark : arks) ark_ders.push_back(to_der(ark.get()));
  for (const auto& cert : intermediates) {
    if (!self_issued(cert.get())) continue;
    const std::string der = to_der(cert.get());
    bool pinned = false;
    for (const auto& a : ark_ders) pinned = pinned || a == der;
    if (!pinned)
      return invalid("root " + subject_name(cert.get()) + " in the chain is not a trusted AMD ARK");
  }

  crypto::X509StorePtr store(X509_STORE_new());
  crypto::X509StackPtr untrusted(sk_X509_new_null());
  crypto::X509StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!store || !untrusted || !ctx) return invalid("out of memory building the certificate store");
  for (const auto& ark : arks)
    if (X509_STORE_add_cert(store.get(), ark.get()) != 1) return invalid("cannot add a trusted ARK");
  for (const auto& cert : intermediates)
    if (!self_issued(cert.get()) && sk_X509_push(untrusted.get(), cert.get()) <= 0)
      return invalid("cannot add an intermediate certificate");

  if (X509_STORE_CTX_init(ctx.get(), store.get(), const_cast<X509*>(leaf), untrusted.get()) != 1)
    return invalid("cannot initialise certificate verification");
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  // Check the ARK's own (self-)signature too, and validity at the requested time.
  X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_CHECK_SS_SIGNATURE);
  X509_VERIFY_PARAM_set_time(param, at);
  const int ok = X509_verify_cert(ctx.get());
  const int err = X509_STORE_CTX_get_error(ctx.get());
  const int depth = X509_STORE_CTX_get_error_depth(ctx.get());
  X509* failing = X509_STORE_CTX_get_current_cert(ctx.get());
  const std::string where = failing ? subject_name(failing) : "depth " + std::to_string(depth);
  ERR_clear_error();
  if (ok != 1) {
    const std::string reason = X509_verify_cert_error_string(err);
    if (err == X509_V_ERR_CERT_HAS_EXPIRED || err == X509_V_ERR_CERT_NOT_YET_VALID)
      return {ChainStatus::kExpired, where + ": " + reason + " at the verification time"};
    return invalid(where + ": " + reason);
  }
  // VCEK → ASK → ARK: exactly three certificates, and every certificate the evidence brought is one of
  // them (a chain with unused or altered extra certificates is rejected, not silently ignored).
  STACK_OF(X509)* built = X509_STORE_CTX_get0_chain(ctx.get());
  const int length = sk_X509_num(built);
  if (length != 3)
    return invalid("chain has " + std::to_string(length) + " certificates, expected VCEK, ASK and ARK");
  if (!chain.empty()) {
    for (const auto& cert : intermediates) {
      bool used = false;
      for (int i = 0; i < length; ++i) used = used || X509_cmp(sk_X509_value(built, i), cert.get()) == 0;
      if (!used)
        return invalid("certificate " + subject_name(cert.get()) +
                       " in the chain is not part of the VCEK's chain");
    }
  }
  if (!crl.empty()) return check_crl(crl, built, at);
  return {ChainStatus::kValid, {}};
}

}  // namespace a3s::power::verify::sev_snp

#include "attestation/simulated/local_key_hierarchy.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "a3s/power/error.h"
#include "attestation/sev_snp/vcek_extensions.h"

namespace a3s::power::verify::sev_snp {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw Error(codes::kInternal, std::string("local key hierarchy: ") + what);
}

crypto::EvpPkeyPtr p384_key() {
  crypto::EvpPkeyPtr k(EVP_EC_gen("P-384"));
  check(k != nullptr, "EC key generation");
  return k;
}

std::string pem_of(X509* cert) {
  crypto::BioPtr bio(BIO_new(BIO_s_mem()));
  check(bio && PEM_write_bio_X509(bio.get(), cert) == 1, "PEM encoding");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::vector<uint8_t> der_of(X509* cert) {
  const int n = i2d_X509(cert, nullptr);
  check(n > 0, "DER encoding");
  std::vector<uint8_t> out(static_cast<size_t>(n));
  unsigned char* p = out.data();
  check(i2d_X509(cert, &p) == n, "DER encoding");
  return out;
}

void add_ext_nid(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  const bool ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  check(ok, "standard extension");
}

void add_ext_raw(X509* cert, const char* oid, const std::string& contents) {
  ASN1_OBJECT* obj = OBJ_txt2obj(oid, 1);
  ASN1_OCTET_STRING* data = ASN1_OCTET_STRING_new();
  bool ok = obj != nullptr && data != nullptr &&
            ASN1_OCTET_STRING_set(data, reinterpret_cast<const unsigned char*>(contents.data()),
                                  static_cast<int>(contents.size())) == 1;
  X509_EXTENSION* ext = ok ? X509_EXTENSION_create_by_OBJ(nullptr, obj, 0, data) : nullptr;
  ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  ASN1_OCTET_STRING_free(data);
  ASN1_OBJECT_free(obj);
  check(ok, "AMD extension");
}

std::string der_integer(uint8_t v) {
  if (v < 0x80) return {'\x02', '\x01', static_cast<char>(v)};
  return {'\x02', '\x02', '\x00', static_cast<char>(v)};
}

std::string der_ia5(const std::string& s) {
  check(s.size() < 0x80, "product name too long");
  return std::string{'\x16', static_cast<char>(s.size())} + s;
}

void add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  check(X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1, 0) == 1,
        "subject name");
}

// An unsigned certificate for `key` named O=`org`, CN=`cn`, issued by `issuer` (nullptr: self-issued).
crypto::X509Ptr make_cert(const std::string& org, const std::string& cn, EVP_PKEY* key, X509* issuer, bool ca,
                  long serial) {
  crypto::X509Ptr cert(X509_new());
  check(cert != nullptr, "certificate allocation");
  X509* c = cert.get();
  X509_set_version(c, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial);
  X509_NAME* name = X509_get_subject_name(c);
  add_name_entry(name, "O", org);
  add_name_entry(name, "CN", cn);
  X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer) : name);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600L * 24 * 365);
  X509_gmtime_adj(X509_getm_notAfter(c), 3600L * 24 * 365 * 10);
  check(X509_set_pubkey(c, key) == 1, "public key");
  if (ca) {
    add_ext_nid(c, issuer ? issuer : c, NID_basic_constraints, "critical,CA:TRUE");
    add_ext_nid(c, issuer ? issuer : c, NID_key_usage, "critical,keyCertSign,cRLSign");
  }
  return cert;
}

void sign_cert(X509* cert, EVP_PKEY* signer) {
  check(X509_sign(cert, signer, EVP_sha384()) > 0, "certificate signing");
}

}  // namespace

LocalKeyHierarchy::LocalKeyHierarchy(const LeafSpec& leaf, const HierarchyNames& names)
    : ark_key_(p384_key()), ask_key_(p384_key()), vcek_key_(p384_key()) {
  crypto::X509Ptr ark = make_cert(names.organization, names.ark_cn, ark_key_.get(), nullptr, true, 1);
  sign_cert(ark.get(), ark_key_.get());
  crypto::X509Ptr ask = make_cert(names.organization, names.ask_cn, ask_key_.get(), ark.get(), true, 2);
  sign_cert(ask.get(), ark_key_.get());
  crypto::X509Ptr vcek = make_cert(names.organization, leaf.subject_cn, vcek_key_.get(), ask.get(), false, 3);
  add_ext_raw(vcek.get(), oids::kProductName, der_ia5(leaf.product_name));
  add_ext_raw(vcek.get(), oids::kBlSpl, der_integer(leaf.tcb.boot_loader));
  add_ext_raw(vcek.get(), oids::kTeeSpl, der_integer(leaf.tcb.tee));
  add_ext_raw(vcek.get(), oids::kSnpSpl, der_integer(leaf.tcb.snp));
  add_ext_raw(vcek.get(), oids::kUcodeSpl, der_integer(leaf.tcb.microcode));
  if (leaf.fmc_extension) add_ext_raw(vcek.get(), oids::kFmcSpl, der_integer(leaf.tcb.fmc));
  if (!leaf.hw_id.empty())
    add_ext_raw(vcek.get(), oids::kHwId, std::string(leaf.hw_id.begin(), leaf.hw_id.end()));
  sign_cert(vcek.get(), ask_key_.get());
  {
    unsigned char* name = nullptr;
    const int n = i2d_X509_NAME(X509_get_subject_name(ark.get()), &name);
    check(n > 0, "ARK subject encoding");
    ark_subject_der_.assign(reinterpret_cast<char*>(name), static_cast<size_t>(n));
    OPENSSL_free(name);
  }
  ark_pem = pem_of(ark.get());
  ask_pem = pem_of(ask.get());
  vcek_pem = pem_of(vcek.get());
  ark_der = der_of(ark.get());
  ask_der = der_of(ask.get());
  vcek_der = der_of(vcek.get());
}

std::vector<uint8_t> LocalKeyHierarchy::ark_crl(const std::vector<std::vector<uint8_t>>& revoked, long valid_days,
                                                bool signer_is_ask) const {
  crypto::X509CrlPtr crl(X509_CRL_new());
  check(crl != nullptr && X509_CRL_set_version(crl.get(), 1) == 1, "CRL allocation");
  const auto* p = reinterpret_cast<const unsigned char*>(ark_subject_der_.data());
  crypto::X509NamePtr issuer(d2i_X509_NAME(nullptr, &p, static_cast<long>(ark_subject_der_.size())));
  check(issuer && X509_CRL_set_issuer_name(crl.get(), issuer.get()) == 1, "CRL issuer");
  crypto::Asn1TimePtr last(X509_gmtime_adj(nullptr, -3600L * 24));
  crypto::Asn1TimePtr next(X509_gmtime_adj(nullptr, 3600L * 24 * valid_days));
  check(last && next && X509_CRL_set1_lastUpdate(crl.get(), last.get()) == 1 &&
            X509_CRL_set1_nextUpdate(crl.get(), next.get()) == 1,
        "CRL dates");
  for (const auto& der : revoked) {
    const unsigned char* q = der.data();
    crypto::X509Ptr cert(d2i_X509(nullptr, &q, static_cast<long>(der.size())));
    check(cert != nullptr, "revoked certificate parse");
    X509_REVOKED* entry = X509_REVOKED_new();
    check(entry != nullptr && X509_REVOKED_set_serialNumber(entry, X509_get_serialNumber(cert.get())) == 1 &&
              X509_REVOKED_set_revocationDate(entry, last.get()) == 1 && X509_CRL_add0_revoked(crl.get(), entry) == 1,
          "CRL entry");
  }
  X509_CRL_sort(crl.get());
  check(X509_CRL_sign(crl.get(), signer_is_ask ? ask_key_.get() : ark_key_.get(), EVP_sha384()) > 0, "CRL signing");
  const int n = i2d_X509_CRL(crl.get(), nullptr);
  check(n > 0, "CRL encoding");
  std::vector<uint8_t> out(static_cast<size_t>(n));
  unsigned char* w = out.data();
  i2d_X509_CRL(crl.get(), &w);
  return out;
}

std::vector<uint8_t> LocalKeyHierarchy::sign(Report report) const {
  report.signature_r = {};
  report.signature_s = {};
  std::vector<uint8_t> bytes = serialize_report(report);
  crypto::EvpMdCtxPtr md(EVP_MD_CTX_new());
  check(md != nullptr, "digest context");
  size_t len = 0;
  check(EVP_DigestSignInit(md.get(), nullptr, EVP_sha384(), nullptr, vcek_key_.get()) == 1, "sign init");
  check(EVP_DigestSign(md.get(), nullptr, &len, bytes.data(), kSignedRegionSize) == 1, "sign size");
  std::vector<uint8_t> der(len);
  check(EVP_DigestSign(md.get(), der.data(), &len, bytes.data(), kSignedRegionSize) == 1, "sign");
  const unsigned char* p = der.data();
  crypto::EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len)));
  check(sig != nullptr, "signature decode");
  check(BN_bn2lebinpad(ECDSA_SIG_get0_r(sig.get()), report.signature_r.data(), kSignatureComponentSize) ==
                static_cast<int>(kSignatureComponentSize) &&
            BN_bn2lebinpad(ECDSA_SIG_get0_s(sig.get()), report.signature_s.data(), kSignatureComponentSize) ==
                static_cast<int>(kSignatureComponentSize),
        "signature encode");
  return serialize_report(report);
}

}  // namespace a3s::power::verify::sev_snp

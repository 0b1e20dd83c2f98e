#include "local_amd_chain.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace a3s::power::verify::sev_snp::testing {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test chain: ") + what);
}

PkeyPtr p384_key() {
  PkeyPtr k(EVP_EC_gen("P-384"));
  check(k != nullptr, "EC key generation");
  return k;
}

std::string pem_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string s(data, static_cast<size_t>(n));
  BIO_free(bio);
  return s;
}

void add_ext_nid(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr && X509_add_ext(cert, ext, -1) == 1, "standard extension");
  X509_EXTENSION_free(ext);
}

void add_ext_raw(X509* cert, const char* oid, const std::string& contents) {
  ASN1_OBJECT* obj = OBJ_txt2obj(oid, 1);
  ASN1_OCTET_STRING* data = ASN1_OCTET_STRING_new();
  ASN1_OCTET_STRING_set(data, reinterpret_cast<const unsigned char*>(contents.data()),
                        static_cast<int>(contents.size()));
  X509_EXTENSION* ext = X509_EXTENSION_create_by_OBJ(nullptr, obj, 0, data);
  check(ext != nullptr && X509_add_ext(cert, ext, -1) == 1, "AMD extension");
  X509_EXTENSION_free(ext);
  ASN1_OCTET_STRING_free(data);
  ASN1_OBJECT_free(obj);
}

std::string der_integer(uint8_t v) {
  if (v < 0x80) return {'\x02', '\x01', static_cast<char>(v)};
  return {'\x02', '\x02', '\x00', static_cast<char>(v)};
}

std::string der_ia5(const std::string& s) {
  return std::string{'\x16', static_cast<char>(s.size())} + s;
}

// An unsigned certificate for `key` named `cn`, issued by `issuer` (nullptr: self-issued).
X509* make_cert(const char* cn, EVP_PKEY* key, X509* issuer, bool ca, long serial) {
  X509* cert = X509_new();
  X509_set_version(cert, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("Local Test AMD"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600L * 24 * 365);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600L * 24 * 365 * 10);
  X509_set_pubkey(cert, key);
  if (ca) {
    add_ext_nid(cert, issuer ? issuer : cert, NID_basic_constraints, "critical,CA:TRUE");
    add_ext_nid(cert, issuer ? issuer : cert, NID_key_usage, "critical,keyCertSign,cRLSign");
  }
  return cert;
}

void sign_cert(X509* cert, EVP_PKEY* signer) {
  check(X509_sign(cert, signer, EVP_sha384()) > 0, "certificate signing");
}

}  // namespace

LocalAmdChain::LocalAmdChain(const LeafSpec& leaf)
    : ark_key_(p384_key()), ask_key_(p384_key()), vcek_key_(p384_key()) {
  X509* ark = make_cert("ARK-Local", ark_key_.get(), nullptr, true, 1);
  sign_cert(ark, ark_key_.get());
  X509* ask = make_cert("SEV-Local", ask_key_.get(), ark, true, 2);
  sign_cert(ask, ark_key_.get());
  X509* vcek = make_cert(leaf.subject_cn.c_str(), vcek_key_.get(), ask, false, 3);
  add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.2", der_ia5(leaf.product_name));
  add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.3.1", der_integer(leaf.tcb.boot_loader));
  add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.3.2", der_integer(leaf.tcb.tee));
  add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.3.3", der_integer(leaf.tcb.snp));
  add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.3.8", der_integer(leaf.tcb.microcode));
  if (leaf.fmc_extension) add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.3.9", der_integer(leaf.tcb.fmc));
  if (!leaf.hw_id.empty())
    add_ext_raw(vcek, "1.3.6.1.4.1.3704.1.4", std::string(leaf.hw_id.begin(), leaf.hw_id.end()));
  sign_cert(vcek, ask_key_.get());
  ark_pem = pem_of(ark);
  ask_pem = pem_of(ask);
  vcek_pem = pem_of(vcek);
  X509_free(vcek);
  X509_free(ask);
  X509_free(ark);
}

std::vector<uint8_t> LocalAmdChain::sign(Report report) const {
  report.signature_r = {};
  report.signature_s = {};
  std::vector<uint8_t> bytes = serialize_report(report);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t len = 0;
  check(EVP_DigestSignInit(md, nullptr, EVP_sha384(), nullptr, vcek_key_.get()) == 1, "sign init");
  check(EVP_DigestSign(md, nullptr, &len, bytes.data(), kSignedRegionSize) == 1, "sign size");
  std::vector<uint8_t> der(len);
  check(EVP_DigestSign(md, der.data(), &len, bytes.data(), kSignedRegionSize) == 1, "sign");
  EVP_MD_CTX_free(md);
  const unsigned char* p = der.data();
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
  check(sig != nullptr, "signature decode");
  check(BN_bn2lebinpad(ECDSA_SIG_get0_r(sig), report.signature_r.data(), 72) == 72 &&
            BN_bn2lebinpad(ECDSA_SIG_get0_s(sig), report.signature_s.data(), 72) == 72,
        "signature encode");
  ECDSA_SIG_free(sig);
  return serialize_report(report);
}

}  // namespace a3s::power::verify::sev_snp::testing

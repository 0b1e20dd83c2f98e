#include "test_quote_signer.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>

#include "base/hex.h"
#include "tdx_test_data.h"
#include "verify/tdx/certificate_chain.h"
#include "verify/tdx/signed_json.h"

namespace a3s::power::verify::tdx::testing {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

crypto::EvpPkeyPtr new_p256() {
  crypto::EvpPkeyPtr key(EVP_EC_gen("P-256"));
  check(key != nullptr, "EVP_EC_gen");
  return key;
}

std::time_t at(const char* iso) {
  return *parse_iso8601_utc(iso);
}

crypto::X509Ptr make_cert(const std::string& cn, long serial, EVP_PKEY* subject_key, X509* issuer,
                  EVP_PKEY* issuer_key, bool ca, X509_EXTENSION* extra) {
  crypto::X509Ptr cert(X509_new());
  check(cert != nullptr, "X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                             -1, 0);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("A3S Test"), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), at("2021-01-01T00:00:00Z"));
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), at("2031-01-01T00:00:00Z"));
  X509_set_pubkey(cert.get(), subject_key);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
  auto add = [&](const char* name, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_conf(nullptr, &ctx, name, value);
    check(ext != nullptr, name);
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  };
  add("basicConstraints", ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  add("keyUsage", ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature,nonRepudiation");
  add("subjectKeyIdentifier", "hash");
  add("authorityKeyIdentifier", "keyid:always");
  if (extra) X509_add_ext(cert.get(), extra, -1);
  check(X509_sign(cert.get(), issuer_key, EVP_sha256()) > 0, "X509_sign");
  return cert;
}

std::string pem_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

// ECDSA P-256 / SHA-256 over `msg` as raw r||s.
std::vector<uint8_t> sign_raw(EVP_PKEY* key, const uint8_t* msg, size_t len) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t der_len = 0;
  check(EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key) == 1, "sign init");
  check(EVP_DigestSign(md, nullptr, &der_len, msg, len) == 1, "sign size");
  std::vector<uint8_t> der(der_len);
  check(EVP_DigestSign(md, der.data(), &der_len, msg, len) == 1, "sign");
  EVP_MD_CTX_free(md);
  const unsigned char* p = der.data();
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der_len));
  std::vector<uint8_t> raw(64);
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), raw.data(), 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), raw.data() + 32, 32);
  ECDSA_SIG_free(sig);
  return raw;
}

std::vector<uint8_t> raw_public(EVP_PKEY* key) {
  unsigned char point[65];
  size_t len = 0;
  check(EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point, &len) == 1 &&
            len == 65,
        "public point");
  return std::vector<uint8_t>(point + 1, point + 65);
}

void put_u16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::string signed_document(const std::string& member, const std::string& body, EVP_PKEY* key) {
  auto sig = sign_raw(key, reinterpret_cast<const uint8_t*>(body.data()), body.size());
  return "{\"" + member + "\":" + body + ",\"signature\":\"" + to_hex(sig) + "\"}";
}

}  // namespace

TestQuoteSigner::TestQuoteSigner()
    : root_key_(new_p256()),
      pck_ca_key_(new_p256()),
      pck_key_(new_p256()),
      tcb_key_(new_p256()),
      attestation_key_(new_p256()) {
  auto sample_pck = parse_pem_certificates(read_bytes(tdx_dir() / "pckCert.pem"));
  ASN1_OBJECT* oid = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
  X509_EXTENSION* sgx = X509_get_ext(sample_pck[0].get(), X509_get_ext_by_OBJ(sample_pck[0].get(), oid, -1));
  ASN1_OBJECT_free(oid);
  root_ = make_cert("A3S Test Root CA", 1, root_key_.get(), nullptr, root_key_.get(), true, nullptr);
  pck_ca_ = make_cert("Intel SGX PCK Processor CA", 2, pck_ca_key_.get(), root_.get(), root_key_.get(), true, nullptr);
  pck_ =
      make_cert("A3S Test PCK Certificate", 3, pck_key_.get(), pck_ca_.get(), pck_ca_key_.get(), false, sgx);
  tcb_ = make_cert("Intel SGX TCB Signing", 4, tcb_key_.get(), root_.get(), root_key_.get(), false, nullptr);
}

std::string TestQuoteSigner::root_pem() const {
  return pem_of(root_.get());
}

std::string TestQuoteSigner::pck_chain_pem() const {
  return pem_of(pck_.get()) + pem_of(pck_ca_.get());
}

std::vector<uint8_t> TestQuoteSigner::quote(const std::vector<uint8_t>& body, QeReportFrom qe_from) const {
  TdxQuote sample = parse_tdx_quote(sample_quote());
  std::vector<uint8_t> signed_part(sample.signed_bytes.begin(), sample.signed_bytes.begin() + 48);
  signed_part.insert(signed_part.end(), body.begin(), body.end());

  std::vector<uint8_t> att = raw_public(attestation_key_.get());
  std::vector<uint8_t> auth = {1, 2, 3, 4};
  std::vector<uint8_t> qe = qe_from == QeReportFrom::kIntelSample
                                ? sample.qe_report_bytes
                                : parse_tdx_quote(edgeless_quote()).qe_report_bytes;
  std::vector<uint8_t> bound = att;
  bound.insert(bound.end(), auth.begin(), auth.end());
  unsigned int n = 0;
  EVP_Digest(bound.data(), bound.size(), qe.data() + 320, &n, EVP_sha256(), nullptr);
  std::fill(qe.begin() + 352, qe.end(), 0);
  std::string chain = pem_of(pck_.get()) + pem_of(pck_ca_.get()) + pem_of(root_.get());

  std::vector<uint8_t> cert6 = qe;
  auto qe_sig = sign_raw(pck_key_.get(), qe.data(), qe.size());
  cert6.insert(cert6.end(), qe_sig.begin(), qe_sig.end());
  put_u16(cert6, static_cast<uint16_t>(auth.size()));
  cert6.insert(cert6.end(), auth.begin(), auth.end());
  put_u16(cert6, 5);
  put_u32(cert6, static_cast<uint32_t>(chain.size()));
  cert6.insert(cert6.end(), chain.begin(), chain.end());

  std::vector<uint8_t> sig_data = sign_raw(attestation_key_.get(), signed_part.data(), signed_part.size());
  sig_data.insert(sig_data.end(), att.begin(), att.end());
  put_u16(sig_data, 6);
  put_u32(sig_data, static_cast<uint32_t>(cert6.size()));
  sig_data.insert(sig_data.end(), cert6.begin(), cert6.end());

  std::vector<uint8_t> out = signed_part;
  put_u32(out, static_cast<uint32_t>(sig_data.size()));
  out.insert(out.end(), sig_data.begin(), sig_data.end());
  return out;
}

TdxCollateral TestQuoteSigner::collateral(const std::string& from, const std::string& to,
                                          QeReportFrom qe_from) const {
  TdxCollateral sample = load_tdx_collateral_dir(tdx_dir().string());
  std::string tcb_body(*raw_json_member(sample.tcb_info_json, "tcbInfo"));
  if (!from.empty()) {
    size_t pos = tcb_body.find(from);
    check(pos != std::string::npos, "edit not found in TCB Info");
    tcb_body.replace(pos, from.size(), to);
  }
  std::string qe_body(*raw_json_member(sample.qe_identity_json, "enclaveIdentity"));
  TdxQuote q = parse_tdx_quote(qe_from == QeReportFrom::kIntelSample ? sample_quote() : edgeless_quote());
  // The QE Identity names the QE report's enclave: its MRSIGNER, ISVPRODID, MISCSELECT, ATTRIBUTES
  // and (as the one TCB level) its ISVSVN.
  auto set = [&](const std::string& from, const std::string& value) {
    size_t pos = qe_body.find(from);
    check(pos != std::string::npos, "sample QE Identity field");
    qe_body.replace(pos, from.size(), value);
  };
  set("\"mrsigner\":\"0bf58c3b57bf0be53f992350d785a33285d583c18127ad624ff98604e6fd3efb\"",
      "\"mrsigner\":\"" + to_hex(q.qe_report.mr_signer) + "\"");
  set("\"miscselect\":\"13373B09\"", "\"miscselect\":\"" + to_hex(q.qe_report.misc_select) + "\"");
  set("\"attributes\":\"0ccefa96ce1ed0f1bfc11bbf599bc0be\"",
      "\"attributes\":\"" + to_hex(q.qe_report.attributes) + "\"");
  set("\"isvprodid\":29854", "\"isvprodid\":" + std::to_string(q.qe_report.isv_prod_id));
  set("\"isvsvn\":12677", "\"isvsvn\":" + std::to_string(q.qe_report.isv_svn));

  TdxCollateral c;
  c.tcb_info_json = signed_document("tcbInfo", tcb_body, tcb_key_.get());
  c.qe_identity_json = signed_document("enclaveIdentity", qe_body, tcb_key_.get());
  c.tcb_sign_chain_pem = pem_of(tcb_.get()) + pem_of(root_.get());
  return c;
}

std::vector<std::vector<uint8_t>> TestQuoteSigner::crls(bool revoke_pck) const {
  std::vector<std::vector<uint8_t>> out;
  auto make = [&](X509* issuer, EVP_PKEY* key, X509* revoked) {
    X509_CRL* crl = X509_CRL_new();
    X509_CRL_set_version(crl, 1);
    X509_CRL_set_issuer_name(crl, X509_get_subject_name(issuer));
    ASN1_TIME* t = ASN1_TIME_set(nullptr, at("2021-01-01T00:00:00Z"));
    X509_CRL_set1_lastUpdate(crl, t);
    ASN1_TIME_set(t, at("2031-01-01T00:00:00Z"));
    X509_CRL_set1_nextUpdate(crl, t);
    ASN1_TIME_free(t);
    if (revoked) {
      X509_REVOKED* r = X509_REVOKED_new();
      X509_REVOKED_set_serialNumber(r, X509_get_serialNumber(revoked));
      ASN1_TIME* when = ASN1_TIME_set(nullptr, at("2022-01-01T00:00:00Z"));
      X509_REVOKED_set_revocationDate(r, when);
      ASN1_TIME_free(when);
      X509_CRL_add0_revoked(crl, r);
    }
    X509_CRL_sort(crl);
    check(X509_CRL_sign(crl, key, EVP_sha256()) > 0, "X509_CRL_sign");
    unsigned char* der = nullptr;
    int n = i2d_X509_CRL(crl, &der);
    out.emplace_back(der, der + n);
    OPENSSL_free(der);
    X509_CRL_free(crl);
  };
  make(root_.get(), root_key_.get(), nullptr);
  make(pck_ca_.get(), pck_ca_key_.get(), revoke_pck ? pck_.get() : nullptr);
  return out;
}

}  // namespace a3s::power::verify::tdx::testing

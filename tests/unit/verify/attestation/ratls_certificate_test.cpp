// RA-TLS certificates (tee/ratls_certificate.h) and their verification
// (verify_ratls_certificate, AttestationPolicy::tls_spki_sha256): the evidence extension binds the
// certificate's own key; a certificate with another key (a man in the middle that copied the
// extension), without the extension, with tampered evidence or outside its validity is rejected.
#include "base/hex.h"
#include "tee/ratls_certificate.h"

#include <gtest/gtest.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "support/mitm_certificate.h"
#include "a3s/power/verify_attestation.h"
#include "attestation_builder.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using verify::AttestationPolicy;
using verify::AttestationResult;

// The body GET /v1/attestation returns for the certificate's key: nonce = tls.spki_sha256 = the digest.
tee::RatlsEvidenceSource evidence_from(tee::SimulatedProvider& provider) {
  return [&provider](const crypto::Sha256Digest& spki) {
    tee::Claims c = make_claims(spki);
    c.tls_spki_sha256 = spki;
    return simulated_response(provider, c).dump();
  };
}

std::string extension_json(X509* cert) {
  ASN1_OBJECT* oid = OBJ_txt2obj(verify::kRatlsEvidenceOid, 1);
  const int index = X509_get_ext_by_OBJ(cert, oid, -1);
  ASN1_OBJECT_free(oid);
  if (index < 0) return {};
  X509_EXTENSION* ext = X509_get_ext(cert, index);
  EXPECT_EQ(X509_EXTENSION_get_critical(ext), 0);
  const ASN1_OCTET_STRING* value = X509_EXTENSION_get_data(ext);
  const unsigned char* p = ASN1_STRING_get0_data(value);
  ASN1_OCTET_STRING* inner = d2i_ASN1_OCTET_STRING(nullptr, &p, ASN1_STRING_length(value));
  if (inner == nullptr) return {};
  std::string out(reinterpret_cast<const char*>(ASN1_STRING_get0_data(inner)), ASN1_STRING_length(inner));
  ASN1_OCTET_STRING_free(inner);
  return out;
}

class RatlsCertificate : public ::testing::Test {
 protected:
  tee::SimulatedProvider provider;
  tee::RatlsCertificate cert = tee::issue_ratls_certificate(std::chrono::hours(24), evidence_from(provider));
  std::string der = tee::certificate_der(cert.certificate.get());
};

TEST_F(RatlsCertificate, IsSelfSignedP384WithTheLifetimeAndTheEvidenceOfItsKey) {
  X509* x = cert.certificate.get();
  EXPECT_EQ(X509_get_version(x), X509_VERSION_3);
  EXPECT_EQ(X509_verify(x, X509_get0_pubkey(x)), 1);
  EXPECT_EQ(EVP_PKEY_get_bits(X509_get0_pubkey(x)), 384);
  EXPECT_EQ(EVP_PKEY_get_id(X509_get0_pubkey(x)), EVP_PKEY_EC);
  char cn[64] = {0};
  X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn);
  EXPECT_STREQ(cn, "A3S Power RA-TLS");
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(x), X509_get_issuer_name(x)), 0);
  int days = 0, seconds = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(x), X509_get0_notAfter(x)), 1);
  EXPECT_EQ(days * 86400 + seconds, 86400 + 60);  // notBefore = now - 1 min, notAfter = now + 24 h
  EXPECT_EQ(cert.not_after - cert.issued_at, std::chrono::hours(24));

  // The extension's claims bind the SPKI of this very certificate.
  const std::string hex = to_hex(cert.spki_sha256);
  EXPECT_EQ(to_hex(*verify::certificate_spki_sha256(der)), hex);
  const nlohmann::json body = nlohmann::json::parse(extension_json(x));
  EXPECT_EQ(body["claims"]["tls"]["spki_sha256"], hex);
  EXPECT_EQ(body["claims"]["nonce"], hex);
  EXPECT_EQ(body["report_data"].get<std::string>().substr(0, 64), hex);

  // A new certificate has a new key and serial.
  const auto other = tee::issue_ratls_certificate(std::chrono::seconds(60), evidence_from(provider));
  EXPECT_NE(other.spki_sha256, cert.spki_sha256);
  EXPECT_NE(ASN1_INTEGER_cmp(X509_get0_serialNumber(x), X509_get0_serialNumber(other.certificate.get())), 0);
  ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(other.certificate.get()),
                           X509_get0_notAfter(other.certificate.get())),
            1);
  EXPECT_EQ(days * 86400 + seconds, 120);
}

TEST_F(RatlsCertificate, GenuineCertificateIsAccepted) {
  const AttestationResult r = verify::verify_ratls_certificate(der, simulated_policy());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  std::vector<std::string> names;
  for (const auto& c : r.checks) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"certificate", "response", "claims_schema", "tls_key", "nonce",
                                             "claims_digest", "config", "model", "model_hash", "evidence_kind",
                                             "policy", "report_data", "endorsements", "evidence", "measurement"}));
  // Without a model in the policy the certificate's model is reported, not compared.
  AttestationPolicy any_model = simulated_policy();
  any_model.model.clear();
  const AttestationResult r2 = verify::verify_ratls_certificate(der, any_model);
  ASSERT_TRUE(r2.accepted) << r2.failed_step << ": " << r2.message;
  EXPECT_EQ(r2.model, kModel);
  // The model is compared when given.
  AttestationPolicy other = simulated_policy();
  other.model = "another";
  EXPECT_EQ(verify::verify_ratls_certificate(der, other).failed_step, "model_mismatch");
}

TEST_F(RatlsCertificate, SimulatedEvidenceIsRejectedUnlessAllowed) {
  AttestationPolicy p = simulated_policy();
  p.allow_simulated = false;
  EXPECT_EQ(verify::verify_ratls_certificate(der, p).failed_step, "simulated_evidence");
}

TEST_F(RatlsCertificate, ManInTheMiddleKeyWithCopiedExtensionIsRejected) {
  const auto mitm = testing::mitm_identity(cert.certificate.get(), /*copy_evidence=*/true);
  ASSERT_EQ(extension_json(mitm.certificate.get()), extension_json(cert.certificate.get()));
  const AttestationResult r =
      verify::verify_ratls_certificate(tee::certificate_der(mitm.certificate.get()), simulated_policy());
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "tls_key_mismatch") << r.message;
}

TEST_F(RatlsCertificate, CertificateWithoutTheExtensionIsRejected) {
  const auto plain = testing::mitm_identity(cert.certificate.get(), /*copy_evidence=*/false);
  const AttestationResult r =
      verify::verify_ratls_certificate(tee::certificate_der(plain.certificate.get()), simulated_policy());
  EXPECT_EQ(r.failed_step, "ratls_extension_missing") << r.message;
}

TEST_F(RatlsCertificate, TamperedEvidenceIsRejected) {
  // Claims changed after the evidence was made (the certificate is still correctly self-signed).
  auto tampered =
      tee::issue_ratls_certificate(std::chrono::hours(1), [this](const crypto::Sha256Digest& spki) {
        nlohmann::json body = nlohmann::json::parse(evidence_from(provider)(spki));
        body["claims"]["runtime"]["version"] = "9.9.9";
        return body.dump();
      });
  EXPECT_EQ(
      verify::verify_ratls_certificate(tee::certificate_der(tampered.certificate.get()), simulated_policy())
          .failed_step,
      "claims_digest_mismatch");
  // Evidence that binds no TLS key.
  auto unbound =
      tee::issue_ratls_certificate(std::chrono::hours(1), [this](const crypto::Sha256Digest& spki) {
        return simulated_response(provider, make_claims(spki)).dump();
      });
  EXPECT_EQ(
      verify::verify_ratls_certificate(tee::certificate_der(unbound.certificate.get()), simulated_policy())
          .failed_step,
      "tls_key_mismatch");
  // Evidence made for another nonce than the key's digest.
  auto stale = tee::issue_ratls_certificate(std::chrono::hours(1), [this](const crypto::Sha256Digest& spki) {
    tee::Claims c = make_claims(test_nonce(7));
    c.tls_spki_sha256 = spki;
    return simulated_response(provider, c).dump();
  });
  EXPECT_EQ(
      verify::verify_ratls_certificate(tee::certificate_der(stale.certificate.get()), simulated_policy())
          .failed_step,
      "nonce_mismatch");
  // A flipped byte in the DER breaks the certificate's own signature (or its encoding).
  std::string flipped = der;
  flipped[flipped.size() - 10] ^= 1;
  EXPECT_EQ(verify::verify_ratls_certificate(flipped, simulated_policy()).failed_step,
            "ratls_certificate_invalid");
  EXPECT_EQ(verify::verify_ratls_certificate("not a certificate", simulated_policy()).failed_step,
            "ratls_certificate_invalid");
}

TEST_F(RatlsCertificate, CertificateOutsideItsValidityIsRejected) {
  AttestationPolicy p = simulated_policy();
  p.at = std::time(nullptr) + 2 * 86400;
  EXPECT_EQ(verify::verify_ratls_certificate(der, p).failed_step, "ratls_certificate_expired");
  p.at = std::time(nullptr) - 3600;
  EXPECT_EQ(verify::verify_ratls_certificate(der, p).failed_step, "ratls_certificate_expired");
}

// The nonce flow over TLS: the claims must bind the peer key of the connection.
TEST(RatlsNonceFlow, ClaimsMustBindThePeerKey) {
  tee::SimulatedProvider provider;
  const tee::Nonce nonce = test_nonce(3);
  crypto::Sha256Digest peer{};
  peer.fill(0x5a);
  tee::Claims c = make_claims(nonce);
  c.tls_spki_sha256 = peer;
  const std::string bound = simulated_response(provider, c).dump();
  AttestationPolicy p = simulated_policy();
  p.tls_spki_sha256 = peer;
  const AttestationResult ok = verify::verify_attestation(bound, nonce, p);
  ASSERT_TRUE(ok.accepted) << ok.failed_step << ": " << ok.message;

  crypto::Sha256Digest other = peer;
  other[31] ^= 1;
  p.tls_spki_sha256 = other;
  EXPECT_EQ(verify::verify_attestation(bound, nonce, p).failed_step, "tls_key_mismatch");

  const std::string unbound = simulated_response(provider, make_claims(nonce)).dump();
  p.tls_spki_sha256 = peer;
  EXPECT_EQ(verify::verify_attestation(unbound, nonce, p).failed_step, "tls_key_mismatch");
  p.tls_spki_sha256.reset();
  EXPECT_TRUE(verify::verify_attestation(unbound, nonce, p).accepted);
  EXPECT_TRUE(verify::verify_attestation(bound, nonce, p).accepted);  // not checked without a peer key
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

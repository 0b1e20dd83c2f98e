// The pinned AMD roots per product: the built-in ARKs are the ones the test data README names, every
// ASK / ASVK is signed by its own product's ARK and by no other, the built-in certificates are the
// ones AMD KDS serves, and evidence is checked against its own product's root only.
#include "attestation/sev_snp/amd_roots.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "snp_test_data.h"
#include "verify/sev_snp/sev_snp_verify.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {
namespace {

using testing::read_text;
using testing::snp_testdata;

constexpr AmdProduct kAllProducts[] = {AmdProduct::kMilan, AmdProduct::kGenoa, AmdProduct::kTurin};

std::string roots_der_sha256(const std::string& pem) {
  const crypto::X509Ptr cert = load_certificate(pem);
  if (!cert) return {};
  const std::string der = to_der(cert.get());
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(der.data(), der.size(), md, &n, EVP_sha256(), nullptr) != 1) return {};
  return testing::hex(md, n);
}

// Whether `child` carries a valid signature by `issuer`'s key.
bool roots_signed_by(const std::string& child_pem, const std::string& issuer_pem) {
  const crypto::X509Ptr child = load_certificate(child_pem);
  const crypto::X509Ptr issuer = load_certificate(issuer_pem);
  if (!child || !issuer) return false;
  const int ok = X509_verify(child.get(), X509_get0_pubkey(issuer.get()));
  ERR_clear_error();
  return ok == 1;
}

TEST(PinnedAmdRoots, ArkFingerprintsAreTheOnesOfTheTestDataReadme) {
  // The values of ../shared/testdata/README.md (attestation/sev-snp/amd-roots), written here.
  const std::pair<AmdProduct, const char*> expected[] = {
      {AmdProduct::kMilan, "69d063b45344d26a2e94e1f4210de49ef555308287d4c174445c95639a540bcd"},
      {AmdProduct::kGenoa, "4c6598d19c18719c5dfd4a7d335f674e5bfe1d8f800cea2cf270c10d103db2f1"},
      {AmdProduct::kTurin, "1f084161a44bb6d93778a904877d4819cafa5d05ef4193b2ded9dd9c73dd3f6a"},
  };
  const std::string readme = read_text(std::string(A3S_TESTDATA_DIR) + "/README.md");
  ASSERT_FALSE(readme.empty());
  for (const auto& [product, fingerprint] : expected) {
    SCOPED_TRACE(std::string(product_name(product)));
    EXPECT_NE(readme.find(std::string("`") + fingerprint + "`"), std::string::npos)
        << "the README no longer names this fingerprint";
    EXPECT_EQ(roots_der_sha256(pinned_amd_roots(product).ark), fingerprint);
  }
}

TEST(PinnedAmdRoots, EachAskAndAsvkIsSignedByItsOwnArkOnly) {
  for (AmdProduct p : kAllProducts) {
    const PinnedAmdRoots roots = pinned_amd_roots(p);
    SCOPED_TRACE(std::string(product_name(p)));
    EXPECT_TRUE(roots_signed_by(roots.ark, roots.ark));  // self-signed
    EXPECT_TRUE(roots_signed_by(roots.ask, roots.ark));
    EXPECT_TRUE(roots_signed_by(roots.asvk, roots.ark));
    for (AmdProduct q : kAllProducts) {
      if (q == p) continue;
      const std::string other_ark = pinned_amd_roots(q).ark;
      EXPECT_FALSE(roots_signed_by(roots.ask, other_ark)) << product_name(q);
      EXPECT_FALSE(roots_signed_by(roots.asvk, other_ark)) << product_name(q);
      EXPECT_NE(roots_der_sha256(roots.ark), roots_der_sha256(other_ark));
    }
  }
}

TEST(PinnedAmdRoots, AreTheCertificatesAmdKdsServes) {
  const std::pair<AmdProduct, std::pair<const char*, const char*>> files[] = {
      {AmdProduct::kMilan, {"ask_ark_milan.pem", "ask_ark_milan_vlek.pem"}},
      {AmdProduct::kGenoa, {"ask_ark_genoa.pem", "ask_ark_genoa_vlek.pem"}},
      {AmdProduct::kTurin, {"ask_ark_turin_vcek.pem", "ask_ark_turin_vlek.pem"}},
  };
  for (const auto& [product, names] : files) {
    SCOPED_TRACE(std::string(product_name(product)));
    const PinnedAmdRoots roots = pinned_amd_roots(product);
    const auto vcek_chain = load_certificates(read_text(snp_testdata(std::string("amd-roots/") + names.first)));
    const auto vlek_chain = load_certificates(read_text(snp_testdata(std::string("amd-roots/") + names.second)));
    ASSERT_TRUE(vcek_chain && vcek_chain->size() == 2);
    ASSERT_TRUE(vlek_chain && vlek_chain->size() == 2);
    EXPECT_EQ(to_der((*vcek_chain)[0].get()), to_der(load_certificate(roots.ask).get()));
    EXPECT_EQ(to_der((*vcek_chain)[1].get()), to_der(load_certificate(roots.ark).get()));
    EXPECT_EQ(to_der((*vlek_chain)[0].get()), to_der(load_certificate(roots.asvk).get()));
    EXPECT_EQ(to_der((*vlek_chain)[1].get()), to_der(load_certificate(roots.ark).get()));
  }
}

TEST(PinnedAmdRoots, AnchorsHoldTheProductsArkAndTheIntermediateOfTheKeyKind) {
  for (AmdProduct p : kAllProducts) {
    const PinnedAmdRoots roots = pinned_amd_roots(p);
    const TrustAnchors vcek = pinned_amd_anchors(p, false);
    const TrustAnchors vlek = pinned_amd_anchors(p, true);
    EXPECT_EQ(vcek.arks, std::vector<std::string>{roots.ark});
    EXPECT_EQ(vcek.asks, std::vector<std::string>{roots.ask});
    EXPECT_EQ(vlek.arks, std::vector<std::string>{roots.ark});
    EXPECT_EQ(vlek.asks, std::vector<std::string>{roots.asvk});
  }
  EXPECT_EQ(pinned_amd_intermediates().size(), 6u);
}

TEST(AmdProductNames, FromCpuidAndFromTheCertificate) {
  EXPECT_EQ(product_from_cpuid(0x19, 0x01), AmdProduct::kMilan);
  EXPECT_EQ(product_from_cpuid(0x19, 0x11), AmdProduct::kGenoa);
  EXPECT_EQ(product_from_cpuid(0x19, 0xA0), AmdProduct::kGenoa);
  EXPECT_EQ(product_from_cpuid(0x1A, 0x02), AmdProduct::kTurin);
  EXPECT_EQ(product_from_cpuid(0x19, 0x30), std::nullopt);
  EXPECT_EQ(product_from_cpuid(0x17, 0x01), std::nullopt);
  EXPECT_EQ(product_from_certificate_name("Milan-B0"), AmdProduct::kMilan);
  EXPECT_EQ(product_from_certificate_name("Genoa"), AmdProduct::kGenoa);
  EXPECT_EQ(product_from_certificate_name("Turin-C1"), AmdProduct::kTurin);
  EXPECT_EQ(product_from_certificate_name("Milanx-B0"), std::nullopt);
  EXPECT_EQ(product_from_certificate_name("milan"), std::nullopt);
  EXPECT_EQ(product_from_certificate_name(""), std::nullopt);
}

// ---- The real (Milan) GCP report against other products' roots ----

Endorsements roots_gcp_vcek(std::string chain = {}) {
  return {read_text(snp_testdata("sev-gcp-vcek.pem")), std::move(chain)};
}

TEST(ProductRoots, MilanReportAcceptedWithThePinnedMilanRootsOnly) {
  const auto report = testing::real_report();
  VerifyDetails details;
  const VerifyResult ok = verify_report(report, roots_gcp_vcek(), {}, testing::at_2026(), nullptr, &details);
  EXPECT_TRUE(ok.accepted) << ok.failed_step << ": " << ok.message;
  EXPECT_EQ(details.product, AmdProduct::kMilan);
  // Trusting the Genoa or Turin roots instead: the Milan VCEK does not chain to them.
  for (AmdProduct other : {AmdProduct::kGenoa, AmdProduct::kTurin}) {
    VerifyOptions o = testing::at_2026();
    o.anchors = pinned_amd_anchors(other, false);
    EXPECT_EQ(verify_report(report, roots_gcp_vcek(), {}, o).failed_step, "chain_invalid") << product_name(other);
  }
}

TEST(ProductRoots, MilanVcekWithAnotherProductsChainIsRefused) {
  const auto report = testing::real_report();
  for (const char* file : {"amd-roots/ask_ark_genoa.pem", "amd-roots/ask_ark_turin_vcek.pem",
                           "amd-roots/ask_ark_genoa_vlek.pem"}) {
    const VerifyResult r =
        verify_report(report, roots_gcp_vcek(read_text(snp_testdata(file))), {}, testing::at_2026());
    EXPECT_EQ(r.failed_step, "chain_invalid") << file;
  }
  // Milan's own VLEK chain (ASVK, ARK) does not issue VCEKs.
  EXPECT_EQ(verify_report(report, roots_gcp_vcek(read_text(snp_testdata("amd-roots/ask_ark_milan_vlek.pem"))), {},
                          testing::at_2026())
                .failed_step,
            "chain_invalid");
  // Milan's VCEK chain is accepted.
  EXPECT_TRUE(verify_report(report, roots_gcp_vcek(read_text(snp_testdata("amd-roots/ask_ark_milan.pem"))), {},
                            testing::at_2026())
                  .accepted);
}

TEST(ProductRoots, ReportWhoseCpuidSaysGenoaIsNotVerifiedAgainstMilan) {
  Report parsed = parse_report(testing::real_report());
  parsed.cpuid_mod_id = 0x11;  // Genoa; the VCEK is a Milan-B0 certificate
  const std::vector<uint8_t> genoa = serialize_report(parsed);
  const VerifyResult r = verify_report(genoa, roots_gcp_vcek(), {}, testing::at_2026());
  EXPECT_EQ(r.failed_step, "chain_invalid");
  EXPECT_NE(r.message.find("Genoa"), std::string::npos) << r.message;
  // An unknown CPUID names no pinned root at all.
  parsed.cpuid_fam_id = 0x17;
  const VerifyResult unknown = verify_report(serialize_report(parsed), roots_gcp_vcek(), {}, testing::at_2026());
  EXPECT_EQ(unknown.failed_step, "chain_invalid");
  EXPECT_NE(unknown.message.find("0x17"), std::string::npos) << unknown.message;
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp

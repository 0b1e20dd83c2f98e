// Tampering with the real evidence: one flipped bit, at many random positions, in the signed region,
// in the signature, in the VCEK and in the ASK / ARK certificates, must make verification fail at the
// step that guards that part. Asserted exactly:
//   signed region bytes 0x004–0x29F      → signature_invalid
//   VERSION bytes 0x000–0x003 (all bits) → unsupported_version or signature_invalid (5^1 = 4 parses)
//   signature bytes 0x2A0–0x49F          → signature_invalid (R, S, their zero upper bytes, reserved)
//   any bit of the VCEK DER              → chain_invalid (unparseable, or its ASK signature fails)
//   any bit of the ASK DER (given chain) → chain_invalid
//   any bit of the ARK DER (given chain) → chain_invalid (not the pinned ARK)
#include <gtest/gtest.h>

#include <random>

#include "snp_test_data.h"
#include "verify/sev_snp/sev_snp_verify.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {
namespace {

using namespace std::chrono;
using testing::read_text;
using testing::snp_testdata;

constexpr int kTrials = 150;

using testing::at_2026;
std::string der_of_pem(const std::string& pem, size_t index) {
  auto certs = load_certificates(pem);
  if (!certs || certs->size() <= index) return {};
  return to_der((*certs)[index].get());
}

class Tamper : public ::testing::Test {
 protected:
  std::vector<uint8_t> report = testing::real_report();
  std::string vcek_der = der_of_pem(read_text(snp_testdata("sev-gcp-vcek.pem")), 0);
  std::string ask_der = der_of_pem(read_text(snp_testdata("sev-gcp-cert-chain.pem")), 0);
  std::string ark_der = der_of_pem(read_text(snp_testdata("sev-gcp-cert-chain.pem")), 1);
  std::mt19937 rng{20261129};

  VerifyResult verify(const std::vector<uint8_t>& bytes, const std::string& vcek, const std::string& chain) {
    return verify_report(bytes, {vcek, chain}, {}, at_2026());
  }
  size_t random_bit(size_t first_byte, size_t end_byte) {
    return std::uniform_int_distribution<size_t>(first_byte * 8, end_byte * 8 - 1)(rng);
  }
};

template <class Bytes>
Bytes flipped(Bytes bytes, size_t bit) {
  bytes[bit / 8] = static_cast<typename Bytes::value_type>(bytes[bit / 8] ^ (1u << (bit % 8)));
  return bytes;
}

TEST_F(Tamper, UntamperedEvidenceIsAccepted) {
  ASSERT_FALSE(vcek_der.empty());
  ASSERT_FALSE(ask_der.empty());
  ASSERT_FALSE(ark_der.empty());
  EXPECT_TRUE(verify(report, vcek_der, {}).accepted);
  const VerifyResult r = verify(report, vcek_der, ask_der + ark_der);  // concatenated DER chain
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST_F(Tamper, AnyBitOfTheSignedRegionIsSignatureInvalid) {
  for (int t = 0; t < kTrials; ++t) {
    const size_t bit = random_bit(4, kSignedRegionSize);
    const VerifyResult r = verify(flipped(report, bit), vcek_der, {});
    EXPECT_EQ(r.failed_step, "signature_invalid") << "byte 0x" << std::hex << bit / 8 << " bit " << bit % 8;
  }
}

TEST_F(Tamper, AnyBitOfTheVersionFailsToo) {
  for (size_t bit = 0; bit < 32; ++bit) {
    const VerifyResult r = verify(flipped(report, bit), vcek_der, {});
    EXPECT_TRUE(r.failed_step == "unsupported_version" || r.failed_step == "signature_invalid")
        << bit << r.failed_step;
  }
}

TEST_F(Tamper, AnyBitOfTheSignatureIsSignatureInvalid) {
  for (int t = 0; t < kTrials; ++t) {
    const size_t bit = random_bit(kSignatureOffset, kReportSize);
    const VerifyResult r = verify(flipped(report, bit), vcek_der, {});
    EXPECT_EQ(r.failed_step, "signature_invalid") << "byte 0x" << std::hex << bit / 8 << " bit " << bit % 8;
  }
  // Each of the 2 × 48 bytes P-384 uses, at least once.
  for (size_t byte = 0; byte < 48; ++byte) {
    EXPECT_EQ(verify(flipped(report, 8 * (kSignatureOffset + byte)), vcek_der, {}).failed_step,
              "signature_invalid");
    EXPECT_EQ(verify(flipped(report, 8 * (kSignatureOffset + 72 + byte) + 7), vcek_der, {}).failed_step,
              "signature_invalid");
  }
}

TEST_F(Tamper, AnyBitOfTheVcekIsChainInvalid) {
  for (int t = 0; t < kTrials; ++t) {
    const size_t bit = random_bit(0, vcek_der.size());
    const VerifyResult r = verify(report, flipped(vcek_der, bit), {});
    EXPECT_EQ(r.failed_step, "chain_invalid")
        << "VCEK byte " << bit / 8 << " bit " << bit % 8 << ": " << r.message;
  }
}

TEST_F(Tamper, AnyBitOfTheAskIsChainInvalid) {
  for (int t = 0; t < kTrials; ++t) {
    const size_t bit = random_bit(0, ask_der.size());
    const VerifyResult r = verify(report, vcek_der, flipped(ask_der, bit) + ark_der);
    EXPECT_EQ(r.failed_step, "chain_invalid")
        << "ASK byte " << bit / 8 << " bit " << bit % 8 << ": " << r.message;
    const VerifyResult alone = verify(report, vcek_der, flipped(ask_der, bit));
    EXPECT_EQ(alone.failed_step, "chain_invalid") << "ASK byte " << bit / 8 << " bit " << bit % 8;
  }
}

TEST_F(Tamper, AnyBitOfTheArkIsChainInvalid) {
  for (int t = 0; t < kTrials; ++t) {
    const size_t bit = random_bit(0, ark_der.size());
    const VerifyResult r = verify(report, vcek_der, ask_der + flipped(ark_der, bit));
    EXPECT_EQ(r.failed_step, "chain_invalid")
        << "ARK byte " << bit / 8 << " bit " << bit % 8 << ": " << r.message;
  }
}

TEST_F(Tamper, TruncatedAndOversizedCertificatesAreChainInvalid) {
  for (size_t n : {size_t{1}, size_t{4}, vcek_der.size() / 2, vcek_der.size() - 1}) {
    EXPECT_EQ(verify(report, vcek_der.substr(0, n), {}).failed_step, "chain_invalid") << n;
    EXPECT_EQ(verify(report, vcek_der, ask_der.substr(0, n)).failed_step, "chain_invalid") << n;
  }
  EXPECT_EQ(verify(report, vcek_der + "x", {}).failed_step, "chain_invalid");
  EXPECT_EQ(verify(report, vcek_der + vcek_der, {}).failed_step, "chain_invalid");  // two certificates
  EXPECT_EQ(verify(report, vcek_der, ask_der + "garbage").failed_step, "chain_invalid");
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp

// Tampering property tests: one flipped bit anywhere in a quote's signed parts, its signatures, its
// QE report or its certificates makes verification fail at the step that owns those bytes.
//
// Byte map of the real quote (tdx-v4-edgeless.dat, 4936 bytes):
//   [0, 8)        version, attestation key type, TEE type: parse step
//   [8, 632)      rest of header and TD report body (signed): signature_invalid
//   [632, 636)    signature data length: malformed_evidence
//   [636, 700)    quote signature: signature_invalid
//   [700, 764)    attestation key: signature_invalid
//   [764, 770)    certification data type / size: malformed_evidence
//   [770, 1154)   QE report: qe_report_invalid
//   [1154, 1218)  QE report signature: qe_report_invalid
//   [1218, 1220)  QE auth data size: malformed_evidence
//   [1220, 1252)  QE auth data: qe_report_invalid (the QE report binds it)
//   [1252, 1254)  PCK certification data type: certificate_missing (not a PCK chain, none given)
//   [1254, 1258)  PCK certification data size: malformed_evidence
//   [1258, 4936)  PEM chain: flipped in the DER of each certificate (re-encoded to the same PEM
//                 length) -> chain_invalid
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>

#include "tdx_test_data.h"
#include "verify/tdx/tdx_verify.h"

namespace a3s::power::verify::tdx {
namespace {

using namespace testing;

constexpr int kFlipsPerRegion = 150;

std::string step_after_flip(std::vector<uint8_t> quote, size_t byte, int bit, const TdxVerifyOptions& o) {
  quote[byte] ^= static_cast<uint8_t>(1u << bit);
  VerifyResult r = verify_tdx_quote(quote, o);
  return r.accepted ? "accepted" : r.failed_step;
}

void expect_region(const std::vector<uint8_t>& quote, const TdxVerifyOptions& o, size_t begin, size_t end,
                   const std::string& step, uint32_t seed) {
  std::mt19937 rng(seed);
  int n = std::min<int>(kFlipsPerRegion, static_cast<int>((end - begin) * 8));
  for (int i = 0; i < n; ++i) {
    size_t byte = begin + rng() % (end - begin);
    int bit = static_cast<int>(rng() % 8);
    EXPECT_EQ(step_after_flip(quote, byte, bit, o), step) << "byte " << byte << " bit " << bit;
  }
}

TEST(TdxTamper, RealQuoteRegions) {
  std::vector<uint8_t> q = edgeless_quote();
  ASSERT_EQ(q.size(), 4936u);
  TdxVerifyOptions o = edgeless_options();
  ASSERT_TRUE(verify_tdx_quote(q, o).accepted);
  expect_region(q, o, 8, 632, steps::kSignatureInvalid, 1);
  expect_region(q, o, 632, 636, steps::kMalformedEvidence, 2);
  expect_region(q, o, 636, 700, steps::kSignatureInvalid, 3);
  expect_region(q, o, 700, 764, steps::kSignatureInvalid, 4);
  expect_region(q, o, 764, 770, steps::kMalformedEvidence, 5);
  expect_region(q, o, 770, 1154, steps::kQeReportInvalid, 6);
  expect_region(q, o, 1154, 1218, steps::kQeReportInvalid, 7);
  expect_region(q, o, 1218, 1220, steps::kMalformedEvidence, 8);
  expect_region(q, o, 1220, 1252, steps::kQeReportInvalid, 9);
  expect_region(q, o, 1252, 1254, steps::kCertificateMissing, 10);
  expect_region(q, o, 1254, 1258, steps::kMalformedEvidence, 12);
}

TEST(TdxTamper, HeaderTypeFieldsFailParsing) {
  std::vector<uint8_t> q = edgeless_quote();
  for (size_t byte = 0; byte < 8; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string step = step_after_flip(q, byte, bit, edgeless_options());
      // version 4 -> 5 reads a v5 body descriptor out of the body and fails on its size
      bool to_v5 = byte == 0 && bit == 0;
      EXPECT_EQ(step, to_v5 ? steps::kMalformedEvidence : steps::kUnsupportedVersion) << byte << " " << bit;
    }
  }
}

// The PEM blocks of a chain: (offset of the base64 text, its length) in `pem`.
std::vector<std::pair<size_t, size_t>> pem_bodies(const std::string& pem) {
  std::vector<std::pair<size_t, size_t>> out;
  const std::string begin = "-----BEGIN CERTIFICATE-----\n", end = "-----END CERTIFICATE-----";
  size_t pos = 0;
  while ((pos = pem.find(begin, pos)) != std::string::npos) {
    size_t body = pos + begin.size();
    size_t stop = pem.find(end, body);
    out.emplace_back(body, stop - body);
    pos = stop;
  }
  return out;
}

std::vector<uint8_t> base64_decode(const std::string& text) {
  std::string flat;
  for (char c : text) {
    if (c != '\n') flat.push_back(c);
  }
  std::vector<uint8_t> out(flat.size());
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(flat.data()),
                          static_cast<int>(flat.size()));
  size_t pad = 0;
  while (pad < flat.size() && flat[flat.size() - 1 - pad] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// Base64 in lines of `width` characters, each followed by a newline.
std::string base64_encode(const std::vector<uint8_t>& der, size_t width) {
  std::string flat(4 * ((der.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(flat.data()), der.data(),
                          static_cast<int>(der.size()));
  flat.resize(static_cast<size_t>(n));
  std::string out;
  for (size_t i = 0; i < flat.size(); i += width) out += flat.substr(i, width) + "\n";
  return out;
}

// Flips one bit in the DER of one certificate of the PEM text `pem`; the PEM keeps its length.
std::string flip_in_certificate(std::string pem, size_t cert, size_t bit_index) {
  auto bodies = pem_bodies(pem);
  auto [off, len] = bodies.at(cert);
  std::string body = pem.substr(off, len);
  size_t width = body.find('\n');
  std::vector<uint8_t> der = base64_decode(body);
  der[(bit_index / 8) % der.size()] ^= static_cast<uint8_t>(1u << (bit_index % 8));
  std::string re = base64_encode(der, width);
  EXPECT_EQ(re.size(), body.size());
  pem.replace(off, len, re);
  return pem;
}

TEST(TdxTamper, RealQuoteEmbeddedCertificates) {
  std::vector<uint8_t> q = edgeless_quote();
  const size_t pem_off = 1258;
  std::string pem(q.begin() + pem_off, q.end());
  auto bodies = pem_bodies(pem);
  ASSERT_EQ(bodies.size(), 3u);  // PCK, PCK Platform/Processor CA, root
  std::mt19937 rng(11);
  for (int i = 0; i < 3 * kFlipsPerRegion; ++i) {
    size_t cert = static_cast<size_t>(i % 3);
    size_t bit = rng() % 100000;
    std::string flipped = flip_in_certificate(pem, cert, bit);
    std::vector<uint8_t> t(q.begin(), q.begin() + pem_off);
    t.insert(t.end(), flipped.begin(), flipped.end());
    ASSERT_EQ(t.size(), q.size());
    VerifyResult r = verify_tdx_quote(t, edgeless_options());
    EXPECT_EQ(r.failed_step, steps::kChainInvalid)
        << "certificate " << cert << " bit " << bit << ": " << r.message;
  }
}

// Intel's sample quote with its collateral gets as far as the QE identity (see tdx_verify_test.cpp:
// the sample QE Identity names another MRSIGNER); every flip must stop it earlier, at its own step.
TEST(TdxTamper, SampleQuoteWithCollateral) {
  std::vector<uint8_t> q = sample_quote();
  TdxVerifyOptions o = sample_options();
  ASSERT_EQ(verify_tdx_quote(q, o).failed_step, steps::kQeIdentityMismatch);
  const size_t qe = 632 + 4 + 128 + 6;
  expect_region(q, o, 8, 632, steps::kSignatureInvalid, 21);
  expect_region(q, o, 636, 700, steps::kSignatureInvalid, 22);
  expect_region(q, o, qe, qe + 384, steps::kQeReportInvalid, 23);
  expect_region(q, o, qe + 384, qe + 448, steps::kQeReportInvalid, 24);

  // The PCK certificate and its CA chain given beside the quote.
  std::mt19937 rng(25);
  for (int i = 0; i < kFlipsPerRegion; ++i) {
    TdxVerifyOptions t = o;
    size_t cert = static_cast<size_t>(i % 3);
    t.pck_chain_pem = flip_in_certificate(*o.pck_chain_pem, cert, rng() % 100000);
    VerifyResult r = verify_tdx_quote(q, t);
    EXPECT_EQ(r.failed_step, steps::kChainInvalid) << "certificate " << cert << ": " << r.message;
  }
}

// One flipped bit in the signed "tcbInfo" / "enclaveIdentity" text or in the signature hex.
TEST(TdxTamper, SignedCollateral) {
  std::vector<uint8_t> q = sample_quote();
  TdxVerifyOptions o = sample_options();
  ASSERT_EQ(verify_tdx_quote(q, o).failed_step, steps::kQeIdentityMismatch);
  std::mt19937 rng(31);
  for (bool tcb : {true, false}) {
    const std::string& doc = tcb ? o.collateral->tcb_info_json : o.collateral->qe_identity_json;
    const std::string body_key = tcb ? "{\"tcbInfo\":" : "{\"enclaveIdentity\":";
    ASSERT_EQ(doc.rfind(body_key, 0), 0u);
    size_t sig = doc.find("\"signature\":\"");
    ASSERT_NE(sig, std::string::npos);
    size_t body_begin = body_key.size(), body_end = sig - 1;  // the object text, before ",\"signature\""
    size_t hex_begin = sig + 13, hex_end = hex_begin + 128;
    for (int i = 0; i < kFlipsPerRegion; ++i) {
      bool in_sig = i % 3 == 0;
      size_t byte =
          in_sig ? hex_begin + rng() % (hex_end - hex_begin) : body_begin + rng() % (body_end - body_begin);
      int bit = static_cast<int>(rng() % 8);
      TdxVerifyOptions t = o;
      std::string& d = tcb ? t.collateral->tcb_info_json : t.collateral->qe_identity_json;
      char before = d[byte];
      d[byte] = static_cast<char>(d[byte] ^ (1 << bit));
      VerifyResult r = verify_tdx_quote(q, t);
      // Hex is case-insensitive: 'a' <-> 'A' in the signature is the same signature.
      bool same_value = in_sig && bit == 5 && std::isalpha(static_cast<unsigned char>(before)) &&
                        std::isxdigit(static_cast<unsigned char>(d[byte]));
      if (same_value) {
        EXPECT_EQ(r.failed_step, steps::kQeIdentityMismatch) << r.message;  // as without the flip
      } else {
        EXPECT_EQ(r.failed_step, steps::kCollateralInvalid)
            << (tcb ? "tcbInfo" : "enclaveIdentity") << " byte " << byte << " bit " << bit << ": "
            << r.message;
      }
    }
  }
}

}  // namespace
}  // namespace a3s::power::verify::tdx

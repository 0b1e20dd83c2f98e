// Ed25519 and the model signature format: RFC 8032 test vector, the signed message layout, the
// .sig text form, and verification failures.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "integrity_test_util.h"

namespace a3s::power::integrity_test {
namespace {

std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out(h.size() / 2);
  EXPECT_TRUE(decode_hex(h, out)) << h;
  return out;
}

TEST(Ed25519, MatchesRfc8032TestVector1) {
  // RFC 8032 section 7.1, TEST 1 (empty message).
  const auto seed = from_hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  std::array<uint8_t, 32> s{};
  std::copy(seed.begin(), seed.end(), s.begin());
  EXPECT_EQ(to_hex(crypto::ed25519_public_key(s)),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const auto sig = crypto::ed25519_sign(s, {});
  EXPECT_EQ(to_hex(sig),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
  EXPECT_TRUE(crypto::ed25519_verify(crypto::ed25519_public_key(s), {}, sig));
}

TEST(ModelSignature, MessageIsContextWithNulThenDigest) {
  crypto::Sha256Digest d{};
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i);
  const auto m = crypto::model_signature_message(d);
  ASSERT_EQ(m.size(), 55u);
  EXPECT_EQ(std::string(m.begin(), m.begin() + 22), "A3S-POWER-MODEL-SIG-V1");
  EXPECT_EQ(m[22], 0);
  EXPECT_TRUE(std::equal(d.begin(), d.end(), m.begin() + 23));
}

TEST(ModelSignature, SignVerifyAndFailures) {
  const SigningKey k(7), other(8);
  crypto::Sha256Digest d{};
  d.fill(0x42);
  const auto sig = crypto::sign_model_digest(k.seed, d);
  EXPECT_TRUE(crypto::verify_model_digest(k.pub, d, sig));
  EXPECT_FALSE(crypto::verify_model_digest(other.pub, d, sig));
  crypto::Sha256Digest d2 = d;
  d2[31] ^= 1;
  EXPECT_FALSE(crypto::verify_model_digest(k.pub, d2, sig));
  auto bad = sig;
  bad[0] ^= 0x80;
  EXPECT_FALSE(crypto::verify_model_digest(k.pub, d, bad));
  // The plain digest (without the context) is not what is signed.
  const auto raw = crypto::ed25519_sign(k.seed, d);
  EXPECT_FALSE(crypto::verify_model_digest(k.pub, d, raw));
}

TEST(ModelSignature, TextForm) {
  crypto::Ed25519Signature sig{};
  sig.fill(0xab);
  const std::string text = crypto::signature_file_text(sig);
  std::string expected;
  for (int i = 0; i < 64; ++i) expected += "ab";
  EXPECT_EQ(text, expected + "\n");
  EXPECT_EQ(crypto::parse_signature_file_text(text), sig);
  EXPECT_EQ(crypto::parse_signature_file_text(text.substr(0, 128)), sig);  // no newline
  std::string upper(128, 'A');
  EXPECT_TRUE(crypto::parse_signature_file_text(upper).has_value());
  EXPECT_FALSE(crypto::parse_signature_file_text(text.substr(0, 127)).has_value());
  EXPECT_FALSE(crypto::parse_signature_file_text(text + "\n").has_value());
  EXPECT_FALSE(crypto::parse_signature_file_text(" " + text).has_value());
  EXPECT_FALSE(crypto::parse_signature_file_text(std::string(127, 'a') + "g").has_value());
  EXPECT_FALSE(crypto::parse_signature_file_text("").has_value());
  EXPECT_EQ(crypto::signature_path_for("/m/x.enc"), "/m/x.enc.sig");
}

TEST(Ed25519, PublicKeyHexParsing) {
  EXPECT_TRUE(crypto::parse_ed25519_public_key(std::string(64, 'f')).has_value());
  EXPECT_FALSE(crypto::parse_ed25519_public_key(std::string(63, 'f')).has_value());
  EXPECT_FALSE(crypto::parse_ed25519_public_key(std::string(62, 'f') + "-1").has_value());
}

}  // namespace
}  // namespace a3s::power::integrity_test

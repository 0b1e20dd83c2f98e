// Canonical JSON (RFC 8785) of the claims object, report_data = nonce || SHA-256(claims), nonce parsing.
#include "attestation/claims.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "crypto/sha256.h"
#include "base/canonical_json.h"
#include "attestation/report_data.h"

namespace a3s::power::tee {
namespace {

using nlohmann::json;

crypto::Sha256Digest digest_of(const std::string& s) {
  return crypto::sha256(std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

void expect_invalid_argument(const json& v) {
  try {
    canonical_json(v);
    FAIL() << "accepted " << v.dump();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
}

TEST(CanonicalJson, SortsKeysAndDropsWhitespace) {
  const json v = json::parse(R"({ "b": true, "a": { "z": "1", "y": false }, "A": "x", "": "e" })");
  EXPECT_EQ(canonical_json(v), R"({"":"e","A":"x","a":{"y":false,"z":"1"},"b":true})");
}

TEST(CanonicalJson, SortsKeysByUtf16CodeUnits) {
  // U+FFFD (UTF-16 0xFFFD) sorts after U+1F600 (UTF-16 0xD83D 0xDE00) although its UTF-8 bytes
  // (EF BF BD) sort before F0 9F 98 80: RFC 8785 §3.2.3 compares UTF-16 code units.
  const json v = {{"\xEF\xBF\xBD", "a"}, {"\xF0\x9F\x98\x80", "b"}, {"\x7F", "c"}};
  EXPECT_EQ(canonical_json(v), "{\"\x7F\":\"c\",\"\xF0\x9F\x98\x80\":\"b\",\"\xEF\xBF\xBD\":\"a\"}");
}

TEST(CanonicalJson, EscapesLikeEcmaScript) {
  std::string s = "q\" b\\ \b\t\n\f\r";
  s.push_back('\0');
  s += "\x01\x1f\x7f/";
  EXPECT_EQ(canonical_json(json(s)), "\"q\\\" b\\\\ \\b\\t\\n\\f\\r\\u0000\\u0001\\u001f\x7f/\"");
}

TEST(CanonicalJson, NonAsciiStaysUtf8IncludingLineSeparators) {
  const std::string s = "caf\xC3\xA9 \xE2\x80\xA8 \xE2\x80\xA9 \xF0\x9F\x98\x80";  // é, U+2028, U+2029, 😀
  EXPECT_EQ(canonical_json(json(s)), "\"" + s + "\"");
}

TEST(CanonicalJson, BooleansAndNestedObjects) {
  EXPECT_EQ(canonical_json(json(true)), "true");
  EXPECT_EQ(canonical_json(json(false)), "false");
  EXPECT_EQ(canonical_json(json::object()), "{}");
  EXPECT_EQ(canonical_json(json::parse(R"({"a":{"b":{"c":"d"}}})")), R"({"a":{"b":{"c":"d"}}})");
}

TEST(CanonicalJson, RejectsNumbersNullArraysAndInvalidUtf8) {
  expect_invalid_argument(json(1));
  expect_invalid_argument(json(-1));
  expect_invalid_argument(json(1u));
  expect_invalid_argument(json(1.5));
  expect_invalid_argument(json::parse(R"({"a":{"b":0}})"));
  expect_invalid_argument(json(nullptr));
  expect_invalid_argument(json::array({"a"}));
  expect_invalid_argument(json(std::string("\xC3\x28")));          // bad continuation
  expect_invalid_argument(json(std::string("\xC0\xAF")));          // overlong
  expect_invalid_argument(json(std::string("\xED\xA0\x80")));      // surrogate
  expect_invalid_argument(json(std::string("\xF4\x90\x80\x80")));  // above U+10FFFF
  expect_invalid_argument(json(std::string("\xE2\x80")));          // truncated
  expect_invalid_argument(json{{std::string("\xFF"), "v"}});       // key
}

TEST(CanonicalJson, ErrorNeverEchoesStringValues) {
  try {
    canonical_json(json{{"model", {{"name", "SECRET-CANARY"}, {"n", 3}}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("SECRET-CANARY"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(".model.n"), std::string::npos) << e.what();
  }
}

Claims sample_claims() {
  Claims c;
  c.nonce = parse_nonce(std::string(64, 'a'));
  c.model_name = "llama-3.2-1b";
  c.model_sha256 = digest_of("model");
  c.signature = SignatureStatus::kVerified;
  c.runtime_version = "0.4.0";
  c.config_sha256 = digest_of("config");
  c.tee_policy = TeePolicy::kDevelopment;
  return c;
}

TEST(Claims, CanonicalFormHasTheSchemaShape) {
  const Claims c = sample_claims();
  const std::string expected =
      std::string(R"({"model":{"name":"llama-3.2-1b","sha256":")") + to_hex(digest_of("model")) +
      R"(","signature":"verified"},"nonce":")" + std::string(64, 'a') + R"(","runtime":{"config_sha256":")" +
      to_hex(digest_of("config")) +
      R"(","tee_policy":"development","version":"0.4.0"},"schema":"a3s-power.claims.v1"})";
  EXPECT_EQ(c.canonical(), expected);
  EXPECT_EQ(c.digest(), digest_of(expected));
}

TEST(Claims, OptionalMembersAppearOnlyWhenSet) {
  Claims c = sample_claims();
  EXPECT_FALSE(c.to_json()["model"].contains("encrypted_sha256"));
  EXPECT_FALSE(c.to_json().contains("tls"));
  c.encrypted_sha256 = digest_of("enc");
  c.tls_spki_sha256 = digest_of("spki");
  c.signature = SignatureStatus::kAbsent;
  c.tee_policy = TeePolicy::kStrict;
  const json j = json::parse(c.canonical());
  EXPECT_EQ(j["model"]["encrypted_sha256"], to_hex(digest_of("enc")));
  EXPECT_EQ(j["model"]["signature"], "absent");
  EXPECT_EQ(j["runtime"]["tee_policy"], "strict");
  EXPECT_EQ(j["tls"]["spki_sha256"], to_hex(digest_of("spki")));
  EXPECT_NE(c.canonical().find(R"("tls":{"spki_sha256":")"), std::string::npos);
}

TEST(Claims, ModelNameIsEscapedCanonically) {
  Claims c = sample_claims();
  c.model_name = "m\"\n\xE2\x80\xA8";
  EXPECT_NE(c.canonical().find("\"name\":\"m\\\"\\n\xE2\x80\xA8\""), std::string::npos);
  c.model_name = "\xFF";
  EXPECT_THROW(c.canonical(), Error);
}

TEST(ReportData, IsNonceThenClaimsDigest) {
  const Claims c = sample_claims();
  const ReportData rd = c.report_data();
  EXPECT_TRUE(std::equal(c.nonce.begin(), c.nonce.end(), rd.begin()));
  const crypto::Sha256Digest d = digest_of(c.canonical());
  EXPECT_TRUE(std::equal(d.begin(), d.end(), rd.begin() + 32));
  EXPECT_EQ(make_report_data(c.nonce, d), rd);
}

TEST(Nonce, ParsesExactly64Hex) {
  const Nonce n = parse_nonce("00112233445566778899aabbccddeeffFFEEDDCCBBAA99887766554433221100");
  EXPECT_EQ(n[0], 0x00);
  EXPECT_EQ(n[1], 0x11);
  EXPECT_EQ(n[15], 0xff);
  EXPECT_EQ(n[16], 0xff);
  EXPECT_EQ(n[31], 0x00);
  for (const std::string& bad :
       {std::string(), std::string(63, 'a'), std::string(65, 'a'), std::string(128, 'a'),
        "0x" + std::string(62, 'a'), " " + std::string(63, 'a'), std::string(63, 'a') + "g",
        std::string(62, 'a') + "-1", std::string(63, 'a') + '\0'}) {
    try {
      parse_nonce(bad);
      FAIL() << "accepted a nonce of length " << bad.size();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace a3s::power::tee

// verify_attestation on responses of the wrong shape: every one is malformed_response (never a crash
// or an exception), and the message names the member without echoing its value.
#include <gtest/gtest.h>

#include <functional>

#include "a3s/power/verify_attestation.h"
#include "attestation_builder.h"
#include "base/json_unique_keys.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using json = nlohmann::json;

verify::AttestationPolicy policy() {
  verify::AttestationPolicy p;
  p.model = kModel;
  p.model_sha256 = model_digest();
  p.allow_simulated = true;
  return p;
}

class Malformed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    provider_ = new tee::SimulatedProvider;
    good_ = new json(simulated_response(*provider_, make_claims(test_nonce(3))));
  }
  static void TearDownTestSuite() {
    delete good_;
    delete provider_;
  }
  static tee::SimulatedProvider* provider_;
  static json* good_;

  void expect_malformed(const std::string& body, const std::string& what) {
    verify::AttestationResult r;
    ASSERT_NO_THROW(r = verify::verify_attestation(body, test_nonce(3), policy())) << what;
    EXPECT_FALSE(r.accepted) << what;
    EXPECT_EQ(r.failed_step, "malformed_response") << what << ": " << r.message;
    EXPECT_FALSE(r.message.empty()) << what;
  }
  void expect_malformed(const std::function<void(json&)>& edit, const std::string& what) {
    json j = *good_;
    edit(j);
    expect_malformed(j.dump(), what);
  }
};

tee::SimulatedProvider* Malformed::provider_ = nullptr;
json* Malformed::good_ = nullptr;

TEST_F(Malformed, TheUneditedResponseIsAccepted) {
  const auto r = verify::verify_attestation(good_->dump(), test_nonce(3), policy());
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST_F(Malformed, NotAnObject) {
  for (const char* body : {"", "not json", "[]", "null", "\"text\"", "42", "{", "{\"tee_type\":}"})
    expect_malformed(body, body);
}

TEST_F(Malformed, MissingMembers) {
  for (const char* key : {"tee_type", "policy", "evidence_format", "report", "report_data", "measurement",
                          "claims", "claims_sha256", "certificates", "verifiable", "config", "generated_at"})
    expect_malformed([&](json& j) { j.erase(key); }, std::string("missing ") + key);
}

TEST_F(Malformed, WrongTypes) {
  for (const char* key : {"tee_type", "policy", "evidence_format", "report", "report_data", "measurement",
                          "claims_sha256", "generated_at"}) {
    expect_malformed([&](json& j) { j[key] = 1; }, std::string(key) + " as a number");
    expect_malformed([&](json& j) { j[key] = nullptr; }, std::string(key) + " as null");
  }
  expect_malformed([](json& j) { j["claims"] = "{}"; }, "claims as a string");
  expect_malformed([](json& j) { j["claims"] = json::array(); }, "claims as an array");
  expect_malformed([](json& j) { j["config"] = "{}"; }, "config as a string");
  expect_malformed([](json& j) { j["config"] = nullptr; }, "config as null");
  expect_malformed([](json& j) { j["verifiable"] = "false"; }, "verifiable as a string");
  expect_malformed([](json& j) { j["certificates"] = 0; }, "certificates as a number");
  expect_malformed([](json& j) { j["certificates"] = json::array(); }, "certificates as an array");
}

TEST_F(Malformed, UnknownEnumerations) {
  expect_malformed([](json& j) { j["tee_type"] = "sgx"; }, "tee_type");
  expect_malformed([](json& j) { j["policy"] = "lenient"; }, "policy");
  expect_malformed([](json& j) { j["evidence_format"] = "sev-snp-ext-report"; }, "evidence_format");
  expect_malformed([](json& j) { j["tee_type"] = "tdx"; }, "tdx with an SEV-SNP report format");
  expect_malformed([](json& j) { j["evidence_format"] = "tdx-quote"; }, "simulated with a TDX format");
}

TEST_F(Malformed, BadBase64) {
  for (const char* bad : {"", "A", "AAA", "AA=A", "A===", "====", "AB==\n",
                          "QR==", "QUJ=", "QUJD RA==", "QUJD\nRA==", "QUJDRA", "QUJDRA=", "-_-_", "QUJD*A=="})
    expect_malformed([&](json& j) { j["report"] = bad; }, std::string("report ") + bad);
  expect_malformed([](json& j) { j["certificates"] = "QR=="; }, "certificates non-canonical");
  expect_malformed([](json& j) { j["certificates"] = ""; }, "certificates empty");
  expect_malformed([](json& j) { j["certificates"] = crypto::base64_encode(std::vector<uint8_t>(24, 1)); },
                   "certificate table without terminator");
}

TEST_F(Malformed, BadHexLengthsAndCase) {
  auto upper = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string rd = (*good_)["report_data"];
  const std::string cs = (*good_)["claims_sha256"];
  expect_malformed([&](json& j) { j["report_data"] = rd.substr(2); }, "report_data 126 digits");
  expect_malformed([&](json& j) { j["report_data"] = rd + "00"; }, "report_data 130 digits");
  expect_malformed([&](json& j) { j["report_data"] = upper(rd); }, "report_data uppercase");
  expect_malformed([&](json& j) { j["report_data"] = "0x" + rd.substr(2); }, "report_data 0x");
  expect_malformed([&](json& j) { j["claims_sha256"] = cs.substr(1); }, "claims_sha256 63 digits");
  expect_malformed([&](json& j) { j["claims_sha256"] = cs.substr(0, 62) + "zz"; }, "claims_sha256 not hex");
  expect_malformed([](json& j) { j["measurement"] = ""; }, "measurement empty");
  expect_malformed([](json& j) { j["measurement"] = "abc"; }, "measurement odd");
  expect_malformed([](json& j) { j["measurement"] = std::string(130, 'a'); }, "measurement too long");
}

TEST_F(Malformed, BadClaims) {
  expect_malformed([](json& j) { j["claims"].erase("schema"); }, "claims without schema");
  expect_malformed([](json& j) { j["claims"]["schema"] = 1; }, "claims schema number");
  expect_malformed([](json& j) { j["claims"].erase("nonce"); }, "claims without nonce");
  expect_malformed([](json& j) { j["claims"]["nonce"] = std::string(62, 'a'); }, "claims nonce short");
  expect_malformed([](json& j) { j["claims"].erase("model"); }, "claims without model");
  expect_malformed([](json& j) { j["claims"]["model"] = "m"; }, "claims model string");
  expect_malformed([](json& j) { j["claims"]["model"].erase("name"); }, "claims model without name");
  expect_malformed([](json& j) { j["claims"]["model"]["name"] = ""; }, "claims model empty name");
  expect_malformed([](json& j) { j["claims"]["model"]["sha256"] = "sha256:00"; }, "claims model sha256");
  expect_malformed([](json& j) { j["claims"]["runtime"].erase("config_sha256"); }, "claims without config_sha256");
  expect_malformed([](json& j) { j["claims"]["runtime"]["config_sha256"] = std::string(64, 'A'); },
                   "claims config_sha256 uppercase");
  expect_malformed([](json& j) { j["claims"]["receipt"] = {{"ed25519_pub", std::string(63, 'a')}, {"key_id", "00"}}; },
                   "claims receipt key short");
  expect_malformed([](json& j) { j["claims"]["receipt"] = {{"ed25519_pub", std::string(64, 'a')}, {"key_id", "00"}}; },
                   "claims receipt key id not the key's");
  // Members the canonical form cannot carry (numbers, arrays, null) make the digest uncomputable.
  expect_malformed([](json& j) { j["claims"]["runtime"]["workers"] = 4; }, "claims with a number");
  expect_malformed([](json& j) { j["claims"]["tls"] = nullptr; }, "claims with null");
  expect_malformed([](json& j) { j["claims"]["extra"] = json::array({"a"}); }, "claims with an array");
}

// RFC 8785 / I-JSON: a key twice in one object (nlohmann::json would keep the last silently).
TEST_F(Malformed, RepeatedKeysAreRejectedAtAnyDepth) {
  const std::string body = good_->dump();
  auto insert_after = [&](const std::string& anchor, const std::string& text) {
    const size_t at = body.find(anchor);
    EXPECT_NE(at, std::string::npos) << anchor;
    std::string out = body;
    out.insert(at + anchor.size(), text);
    return out;
  };
  // The unsigned policy said twice: the first "development", the last "strict".
  ASSERT_EQ((*good_)["policy"], "development");
  expect_malformed(insert_after("{", "\"policy\":\"strict\","), "top-level policy repeated");
  expect_malformed(insert_after("\"claims\":{", "\"nonce\":\"" + std::string(64, '0') + "\","),
                   "claims.nonce repeated");
  expect_malformed(insert_after("\"runtime\":{", "\"tee_policy\":\"strict\","), "claims.runtime.tee_policy repeated");
  // The message says that a key repeats, without naming it.
  const std::string canary = "zz-canary-key";
  const auto r = verify::verify_attestation(
      insert_after("{", "\"" + canary + "\":\"a\",\"" + canary + "\":\"b\","), test_nonce(3), policy());
  EXPECT_EQ(r.failed_step, "malformed_response");
  EXPECT_NE(r.message.find("repeats a key"), std::string::npos) << r.message;
  EXPECT_EQ(r.message.find("zz-canary"), std::string::npos) << r.message;
}

TEST(UniqueKeys, TheSameKeyInDifferentObjectsIsAccepted) {
  std::string error;
  EXPECT_TRUE(parse_json_unique_keys(R"([{"a":1},{"a":2}])", error)) << error;
  EXPECT_TRUE(parse_json_unique_keys(R"({"a":{"a":{"b":1},"b":2},"b":[{"b":3}]})", error)) << error;
  EXPECT_FALSE(parse_json_unique_keys(R"({"a":{"b":1},"c":[{"d":1,"d":2}]})", error));
  EXPECT_EQ(error, "a JSON object repeats a key");
  EXPECT_FALSE(parse_json_unique_keys(R"({"a":1,"a":1})", error));
  EXPECT_FALSE(parse_json_unique_keys(R"({"a":)", error));
  EXPECT_EQ(error, "not JSON");
}

TEST_F(Malformed, InvalidUtf8InClaims) {
  std::string body = good_->dump();
  const std::string name = "\"" + kModel + "\"";
  const size_t at = body.find(name);
  ASSERT_NE(at, std::string::npos);
  body.replace(at, name.size(), "\"" + kModel + "\xC3\"");  // truncated UTF-8 sequence
  expect_malformed(body, "invalid UTF-8");
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

// verify_receipt (a3s/power/verify_receipt.h): receipts signed in-process like the server signs them
// (attestation/receipt.h) under a receipt key bound into simulated attestation claims; responses as
// one JSON body and as SSE streams; every byte of a receipt and of a response flipped; a receipt of
// another key (another boot).
#include <gtest/gtest.h>

#include <set>

#include "a3s/power/verify_receipt.h"
#include "attestation/receipt.h"
#include "attestation_builder.h"
#include "base/hex.h"
#include "crypto/ed25519.h"

namespace a3s::power::verify_attestation_testing {
namespace {

using nlohmann::json;

// One boot's receipt key.
struct ReceiptKeyForTest {
  std::array<uint8_t, 32> seed{};
  crypto::Ed25519PublicKey pub{};
  ReceiptKeyForTest() {
    crypto::ed25519_random_seed(seed);
    pub = crypto::ed25519_public_key(seed);
  }
  json sign(tee::Receipt r) const {
    r.key_id = tee::receipt_key_id(pub);
    const std::string bytes = r.signed_bytes();
    return tee::signed_receipt_json(r, crypto::ed25519_sign(seed, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
  }
};

json chat_head_for_receipt_test(const char* object) {
  return {{"id", "chatcmpl-0123456789abcdef01234567"},
          {"object", object},
          {"created", 1767225600},
          {"model", kModel},
          {"system_fingerprint", "fp_a3s_test"}};
}

json chat_choices_for_receipt_test() {
  return json::array({{{"index", 0},
                       {"message", {{"role", "assistant"}, {"content", "Once upon a time, \"Lily\"\n\xC3\xA9!"}}},
                       {"logprobs", nullptr},
                       {"finish_reason", "length"}}});
}

tee::Receipt receipt_for_test(const json& choices, const std::string& object, bool stream) {
  tee::Receipt r;
  r.response.id = "chatcmpl-0123456789abcdef01234567";
  r.response.object = object;
  r.response.created = 1767225600;
  r.response.model = kModel;
  r.response.system_fingerprint = "fp_a3s_test";
  r.response.stream = stream;
  r.request_sha256.fill(0x11);
  const std::vector<int32_t> prompt = {1, 9038, 2501, 263, 931};
  r.prompt_sha256 = tee::prompt_sha256(prompt);
  r.output_sha256 = tee::output_sha256(choices);
  r.model_sha256 = model_digest();
  r.config_sha256 = make_claims(test_nonce(0)).config_sha256;
  r.usage.prompt_tokens = 5;
  r.usage.completion_tokens = 16;
  r.completed_at = 1767225601;
  return r;
}

std::string sse_for_receipt_test(const std::vector<json>& chunks) {
  std::string out;
  for (const json& c : chunks) out += "data: " + c.dump() + "\n\n";
  return out + "data: [DONE]\n\n";
}

// The stream of chat_choices_for_receipt_test(), split in deltas like the server's, the receipt in
// the usage chunk (include_usage) or in a chunk of its own.
std::string chat_stream_for_test(const json& receipt, bool include_usage) {
  auto chunk = [&](json delta, json finish) {
    json j = chat_head_for_receipt_test("chat.completion.chunk");
    j["choices"] = json::array({{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", std::move(finish)}}});
    if (include_usage) j["usage"] = nullptr;
    return j;
  };
  std::vector<json> chunks = {chunk({{"role", "assistant"}, {"content", ""}}, nullptr),
                              chunk({{"content", "Once upon"}}, nullptr),
                              chunk({{"content", " a time, \"Lily\"\n"}}, nullptr),
                              chunk({{"content", "\xC3\xA9!"}}, nullptr), chunk(json::object(), "length")};
  json last = chat_head_for_receipt_test("chat.completion.chunk");
  last["choices"] = json::array();
  if (include_usage) last["usage"] = {{"prompt_tokens", 5}, {"completion_tokens", 16}, {"total_tokens", 21}};
  last["attestation_receipt"] = receipt;
  chunks.push_back(last);
  return sse_for_receipt_test(chunks);
}

std::string chat_body_for_test(const json& receipt) {
  json body = chat_head_for_receipt_test("chat.completion");
  body["choices"] = chat_choices_for_receipt_test();
  body["usage"] = {{"prompt_tokens", 5}, {"completion_tokens", 16}, {"total_tokens", 21}};
  body["attestation_receipt"] = receipt;
  return body.dump();
}

class Receipts : public ::testing::Test {
 protected:
  void SetUp() override {
    tee::Claims claims = make_claims(test_nonce(5));
    claims.receipt_public_key = key.pub;
    attestation = simulated_response(provider, claims).dump();
  }
  verify::ReceiptResult check(const std::string& receipt, std::optional<std::string> response = std::nullopt,
                              const verify::AttestationPolicy& policy = simulated_policy()) {
    return verify::verify_receipt(attestation, receipt,
                                  response ? std::optional<std::string_view>(*response) : std::nullopt, policy);
  }

  tee::SimulatedProvider provider;
  ReceiptKeyForTest key;
  std::string attestation;
};

TEST_F(Receipts, AReceiptOfThisBootVerifies) {
  const json receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  const verify::ReceiptResult r = check(receipt.dump());
  ASSERT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_FALSE(r.response_checked);
  EXPECT_EQ(r.key_id, tee::receipt_key_id(key.pub));
  EXPECT_EQ(r.prompt_tokens, 5);
  EXPECT_EQ(r.completion_tokens, 16);
  EXPECT_TRUE(r.attestation.accepted);
  std::vector<std::string> names;
  for (const auto& c : r.checks) names.push_back(c.name);
  EXPECT_EQ(names.front(), "receipt");
  EXPECT_EQ(names.back(), "receipt_config");
  EXPECT_NE(std::find(names.begin(), names.end(), "evidence"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "config"), names.end());
}

TEST_F(Receipts, TheResponseBodyAndStreamMatchTheReceipt) {
  const json body_receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  verify::ReceiptResult r = check(body_receipt.dump(), chat_body_for_test(body_receipt));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  EXPECT_TRUE(r.response_checked);
  // The same content streamed has the same output digest.
  const json stream_receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion.chunk", true));
  EXPECT_EQ(stream_receipt["output_sha256"], body_receipt["output_sha256"]);
  for (bool usage : {true, false}) {
    r = check(stream_receipt.dump(), chat_stream_for_test(stream_receipt, usage));
    EXPECT_TRUE(r.accepted) << usage << " " << r.failed_step << ": " << r.message;
  }
  // A receipt given alone against a response that does not carry it (stripped) still checks the content.
  json stripped = json::parse(chat_body_for_test(body_receipt));
  stripped.erase("attestation_receipt");
  EXPECT_TRUE(check(body_receipt.dump(), stripped.dump()).accepted);
  // Body receipt against the stream, and the other way round.
  EXPECT_EQ(check(body_receipt.dump(), chat_stream_for_test(stream_receipt, true)).failed_step, "receipt_output_mismatch");
  EXPECT_EQ(check(stream_receipt.dump(), chat_body_for_test(body_receipt)).failed_step, "receipt_output_mismatch");
}

TEST_F(Receipts, TextCompletionStreamsReassemble) {
  const json choices = json::array({{{"text", "abc def"}, {"index", 0}, {"logprobs", nullptr}, {"finish_reason", "stop"}}});
  tee::Receipt rc = receipt_for_test(choices, "text_completion", true);
  rc.response.id = "cmpl-1";
  const json receipt = key.sign(rc);
  auto chunk = [](const char* text, json finish) {
    json j = chat_head_for_receipt_test("text_completion");
    j["id"] = "cmpl-1";
    j["choices"] = json::array({{{"text", text}, {"index", 0}, {"logprobs", nullptr}, {"finish_reason", std::move(finish)}}});
    return j;
  };
  json last = chat_head_for_receipt_test("text_completion");
  last["id"] = "cmpl-1";
  last["choices"] = json::array();
  last["attestation_receipt"] = receipt;
  const std::string stream = sse_for_receipt_test({chunk("abc", nullptr), chunk(" def", nullptr), chunk("", "stop"), last});
  const verify::ReceiptResult r = check(receipt.dump(), stream);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

const std::set<std::string> kReceiptSteps = {"malformed_receipt", "receipt_key_unbound", "receipt_signature_invalid",
                                             "receipt_model_mismatch", "receipt_config_mismatch"};
const std::set<std::string> kResponseSteps = {"malformed_completion", "receipt_output_mismatch"};

TEST_F(Receipts, EveryFlippedByteOfTheReceiptFailsAtAReceiptStep) {
  const std::string receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false)).dump();
  std::map<std::string, int> seen;
  for (size_t i = 0; i < receipt.size(); ++i) {
    std::string bad = receipt;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    const verify::ReceiptResult r = check(bad);
    ASSERT_FALSE(r.accepted) << "byte " << i << ": " << bad;
    EXPECT_TRUE(kReceiptSteps.count(r.failed_step)) << "byte " << i << ": " << r.failed_step;
    ++seen[r.failed_step];
  }
  EXPECT_GT(seen["malformed_receipt"], 0);
  EXPECT_GT(seen["receipt_signature_invalid"], 0);
  EXPECT_GT(seen["receipt_key_unbound"], 0);  // a flipped key_id digit
}

// Every byte of the body outside its embedded receipt, every other byte of the streams' chunks and
// every framing byte, and every 16th byte of the embedded receipts (a receipt that differs from the
// one given is refused as a whole; flipping each of its bytes is the receipt test's). Each check also
// verifies the attestation, so not every position of the streams is flipped.
TEST_F(Receipts, EveryFlippedByteOfTheResponseFailsAtAResponseStep) {
  const json body_receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  const json stream_receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion.chunk", true));
  struct FlipCase {
    json receipt;
    std::string response;
    size_t stride;
  };
  const std::vector<FlipCase> cases = {{body_receipt, chat_body_for_test(body_receipt), 1},
                                       {stream_receipt, chat_stream_for_test(stream_receipt, true), 2},
                                       {stream_receipt, chat_stream_for_test(stream_receipt, false), 2}};
  for (const auto& [receipt, response, stride] : cases) {
    ASSERT_TRUE(check(receipt.dump(), response).accepted);
    const std::string embedded = receipt.dump();
    const size_t receipt_at = response.find(embedded);
    ASSERT_NE(receipt_at, std::string::npos);
    std::vector<bool> framing(response.size(), false);
    for (size_t at = response.find("data: "); at != std::string::npos; at = response.find("data: ", at + 1))
      for (size_t k = at; k < at + 6; ++k) framing[k] = true;
    for (size_t i = 0; i < response.size(); ++i)
      if (response[i] == '\n') framing[i] = true;
    for (size_t i = 0; i < response.size(); ++i) {
      const bool in_receipt = i >= receipt_at && i < receipt_at + embedded.size();
      if (in_receipt ? i % 16 != 0 : (!framing[i] && i % stride != 0)) continue;
      std::string bad = response;
      bad[i] = static_cast<char>(bad[i] ^ 0x01);
      const verify::ReceiptResult r = check(receipt.dump(), bad);
      ASSERT_FALSE(r.accepted) << "byte " << i << ": " << bad.substr(i > 20 ? i - 20 : 0, 60);
      EXPECT_TRUE(kResponseSteps.count(r.failed_step)) << "byte " << i << ": " << r.failed_step;
    }
  }
}

TEST_F(Receipts, AReceiptOfAnotherBootIsNotBound) {
  ReceiptKeyForTest other_boot;
  const json receipt = other_boot.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  EXPECT_EQ(check(receipt.dump()).failed_step, "receipt_key_unbound");
  // Naming this boot's key does not help: the signature is the other key's.
  json forged = receipt;
  forged["key_id"] = tee::receipt_key_id(key.pub);
  EXPECT_EQ(check(forged.dump()).failed_step, "receipt_signature_invalid");
}

TEST_F(Receipts, AnAttestationWithoutAReceiptKeyBindsNone) {
  attestation = simulated_response(provider, make_claims(test_nonce(6))).dump();
  const json receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  EXPECT_EQ(check(receipt.dump()).failed_step, "receipt_key_unbound");
}

TEST_F(Receipts, ModelAndConfigMustBeTheAttestedOnes) {
  tee::Receipt rc = receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false);
  rc.model_sha256.fill(0x77);
  EXPECT_EQ(check(key.sign(rc).dump()).failed_step, "receipt_model_mismatch");
  rc = receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false);
  rc.response.model = "other-model";
  EXPECT_EQ(check(key.sign(rc).dump()).failed_step, "receipt_model_mismatch");
  rc = receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false);
  rc.config_sha256.fill(0x78);
  EXPECT_EQ(check(key.sign(rc).dump()).failed_step, "receipt_config_mismatch");
}

TEST_F(Receipts, TheAttestationIsVerifiedWithTheSamePolicy) {
  const std::string receipt = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false)).dump();
  verify::AttestationPolicy strict = simulated_policy();
  strict.allow_simulated = false;
  EXPECT_EQ(check(receipt, std::nullopt, strict).failed_step, "simulated_evidence");
  verify::AttestationPolicy wrong_hash = simulated_policy();
  wrong_hash.model_sha256.fill(0);
  EXPECT_EQ(check(receipt, std::nullopt, wrong_hash).failed_step, "model_hash_mismatch");
  // A nonce, when given, must be the attestation's.
  EXPECT_TRUE(verify::verify_receipt(attestation, receipt, std::nullopt, simulated_policy(), test_nonce(5)).accepted);
  EXPECT_EQ(verify::verify_receipt(attestation, receipt, std::nullopt, simulated_policy(), test_nonce(9)).failed_step,
            "nonce_mismatch");
}

TEST_F(Receipts, PromptDigestIsOverLittleEndianInt32TokenIds) {
  const std::vector<int32_t> tokens = {1, 258, -1};
  const std::vector<uint8_t> bytes = {1, 0, 0, 0, 2, 1, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(tee::prompt_sha256(tokens), crypto::sha256(bytes));
  EXPECT_EQ(tee::prompt_sha256({}), crypto::sha256({}));
}

TEST_F(Receipts, MalformedReceiptsAreNamed) {
  const json good = key.sign(receipt_for_test(chat_choices_for_receipt_test(), "chat.completion", false));
  auto step_after = [&](auto edit) {
    json j = good;
    edit(j);
    return check(j.dump()).failed_step;
  };
  EXPECT_EQ(step_after([](json& j) { j["extra"] = 1; }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j.erase("usage"); }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["usage"]["total_tokens"] = 22; }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["usage"]["prompt_tokens"] = -1; }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["usage"]["prompt_tokens"] = 5.0; }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["schema"] = "a3s-power.receipt.v2"; }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["output_sha256"] = std::string(64, 'A'); }), "malformed_receipt");
  EXPECT_EQ(step_after([](json& j) { j["signature"] = std::string(126, 'a'); }), "malformed_receipt");
  EXPECT_EQ(check("[]").failed_step, "malformed_receipt");
  const std::string text = good.dump();
  EXPECT_EQ(check("{\"schema\":\"x\"," + text.substr(1)).failed_step, "malformed_receipt");  // a key twice
}

}  // namespace
}  // namespace a3s::power::verify_attestation_testing

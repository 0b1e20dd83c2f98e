// The server's receipts: the Attestor's per-boot receipt key is in the claims and signs receipts that
// the client verifier accepts; the published configuration's canonical digest is the claimed one; and
// the output digest of a response built by the server's own shapes is the same whether the verifier
// reads it from the JSON body or reassembles it from the SSE chunks.
#include <gtest/gtest.h>

#include <limits>

#include "a3s/power/verify_receipt.h"
#include "attestation/receipt.h"
#include "base/canonical_json.h"
#include "base/hex.h"
#include "crypto/sha256.h"
#include "server/attestation.h"
#include "server/openai_response.h"

namespace a3s::power::server {
namespace {

using nlohmann::json;

config::Config receipt_test_config() {
  config::Config c;
  c.tee_mode = true;
  c.tee_policy = TeePolicy::kDevelopment;
  c.tee_device_root = "/nonexistent-tee-root";
  c.queue_timeout_seconds = 2.5;
  return c;
}

runtime::ModelDescription receipt_test_model() {
  runtime::ModelDescription d;
  d.name = "stories";
  d.sha256 = std::string(64, 'a');
  return d;
}

verify::AttestationPolicy receipt_test_policy() {
  verify::AttestationPolicy p;
  p.model = "stories";
  p.model_sha256.fill(0xaa);
  p.allow_simulated = true;
  return p;
}

ResponseMeta receipt_test_meta(bool chat) {
  ResponseMeta m;
  m.id = new_response_id(chat);
  m.created = 1767225600;
  m.model = "stories";
  m.system_fingerprint = "fp_test";
  return m;
}

// The pieces the test response is streamed in, one token each.
const std::vector<std::string>& receipt_test_pieces() {
  static const std::vector<std::string> pieces = {"Once upon a time, ", "\"Lily\"\n", "\xC3\xA9"};
  return pieces;
}

// Log probabilities of one token per piece (with a partial UTF-8 alternative).
std::vector<TokenLogprobs> receipt_test_logprobs(size_t first, size_t count) {
  std::vector<TokenLogprobs> out;
  for (size_t i = first; i < first + count; ++i) {
    TokenLogprobs t;
    t.chosen = {static_cast<Token>(10 + i), -0.25f * static_cast<float>(i + 1), receipt_test_pieces()[i]};
    t.top = {t.chosen, {7, -std::numeric_limits<float>::infinity(), "\xC3"}};
    out.push_back(std::move(t));
  }
  return out;
}

// A reasoning model's thinking, on the second choice of a chat response.
constexpr const char* kReceiptTestThinking = "Thinking \"hard\"\n\xC3\xA9";

// Two choices (the API's n = 2), with or without log probabilities.
std::vector<ChoiceOutput> receipt_test_choices(bool chat, bool logprobs) {
  std::vector<ChoiceOutput> out(2);
  if (chat) out[1].reasoning = kReceiptTestThinking;
  for (ChoiceOutput& c : out) {
    for (const auto& p : receipt_test_pieces()) c.text += p;
    c.finish = FinishReason::Length;
    if (logprobs) {
      const auto lp = receipt_test_logprobs(0, receipt_test_pieces().size());
      c.logprobs = chat ? chat_logprobs(lp) : text_logprobs(lp, 0);
    }
  }
  return out;
}

UsageCounts receipt_test_usage() { return {10, 40, 0}; }

tee::Receipt receipt_test_receipt(const ResponseMeta& m, const char* object, bool stream, const json& choices) {
  tee::Receipt rc;
  rc.response = {m.id, object, m.created, m.model, m.system_fingerprint, stream};
  rc.model_sha256.fill(0xaa);
  rc.output_sha256 = tee::output_sha256(json::parse(json_text(choices)));  // as the client decodes them
  rc.usage.prompt_tokens = 10;
  rc.usage.completion_tokens = 40;
  rc.completed_at = m.created + 1;
  return rc;
}

TEST(Receipts, TheReceiptKeyIsInTheClaimsAndTheConfigIsPublished) {
  Attestor a(receipt_test_config());
  const json j = a.attest(tee::Nonce{}, receipt_test_model());
  EXPECT_EQ(j["claims"]["receipt"]["ed25519_pub"], to_hex(a.receipt_public_key()));
  EXPECT_EQ(j["claims"]["receipt"]["key_id"], a.receipt_key_id());
  EXPECT_EQ(a.receipt_key_id(), tee::receipt_key_id(a.receipt_public_key()));
  EXPECT_EQ(a.receipt_key_id().size(), 16u);
  ASSERT_TRUE(j["config"].is_object());
  EXPECT_EQ(j["config"]["queue_timeout_seconds"], 2.5);
  const std::string canonical = canonical_json(j["config"], JsonValues::kAll);
  EXPECT_EQ(to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(canonical.data()), canonical.size()})),
            j["claims"]["runtime"]["config_sha256"]);
  // Another boot, another key.
  Attestor b(receipt_test_config());
  EXPECT_NE(a.receipt_public_key(), b.receipt_public_key());
}

TEST(Receipts, ServerShapedResponsesVerifyAsBodyAndAsStream) {
  Attestor a(receipt_test_config());
  const std::string attestation = a.attest(tee::Nonce{}, receipt_test_model()).dump();
  for (bool chat : {true, false}) {
    for (bool logprobs : {false, true}) {
      const ResponseMeta m = receipt_test_meta(chat);
      const std::vector<ChoiceOutput> choices = receipt_test_choices(chat, logprobs);
      // One JSON body.
      json body = chat ? chat_completion(m, choices, receipt_test_usage()) : text_completion(m, choices, receipt_test_usage());
      ASSERT_EQ(body["choices"].size(), 2u);
      EXPECT_EQ(body["choices"][1]["index"], 1);
      if (chat) {
        EXPECT_FALSE(body["choices"][0]["message"].contains("reasoning_content"));
        EXPECT_EQ(body["choices"][1]["message"]["reasoning_content"], kReceiptTestThinking);
      }
      json receipt =
          a.sign_receipt(receipt_test_receipt(m, chat ? "chat.completion" : "text_completion", false, body["choices"]));
      EXPECT_EQ(receipt["config_sha256"], to_hex(a.config_sha256()));
      body["attestation_receipt"] = receipt;
      verify::ReceiptResult v =
          verify::verify_receipt(attestation, receipt.dump(), json_text(body), receipt_test_policy());
      EXPECT_TRUE(v.accepted) << chat << logprobs << " body: " << v.failed_step << ": " << v.message;

      // The stream of the same result, the two choices' chunks interleaved, each piece's log
      // probabilities with it except the last one's, which ride on the finish chunk; its receipt
      // is signed over the non-streaming choices.
      for (bool include_usage : {true, false}) {
        std::string stream;
        const auto& pieces = receipt_test_pieces();
        for (int i = 0; i < 2; ++i)
          if (chat) stream += sse_event(chat_chunk_role(m, i, include_usage));
        if (chat) stream += sse_event(chat_chunk_delta(m, 1, "", nullptr, include_usage, kReceiptTestThinking));
        size_t offset = 0;
        for (size_t k = 0; k < pieces.size(); ++k) {
          for (int i = 0; i < 2; ++i) {
            json lp = nullptr;
            if (logprobs && k + 1 < pieces.size()) {
              const auto t = receipt_test_logprobs(k, 1);
              lp = chat ? chat_logprobs(t) : text_logprobs(t, offset);
            }
            stream += sse_event(chat ? chat_chunk_delta(m, i, pieces[k], lp, include_usage)
                                     : text_chunk(m, i, pieces[k], lp, nullptr, include_usage));
          }
          if (k + 1 < pieces.size()) offset += pieces[k].size();
        }
        for (int i = 0; i < 2; ++i) {
          json lp = nullptr;
          if (logprobs) {
            const auto t = receipt_test_logprobs(pieces.size() - 1, 1);
            lp = chat ? chat_logprobs(t) : text_logprobs(t, offset);
          }
          stream += sse_event(chat ? chat_chunk_finish(m, i, "length", lp, include_usage)
                                   : text_chunk(m, i, "", lp, "length", include_usage));
        }
        json stream_receipt = a.sign_receipt(
            receipt_test_receipt(m, chat ? "chat.completion.chunk" : "text_completion", true, body["choices"]));
        json last = include_usage ? usage_chunk(m, chat, receipt_test_usage()) : receipt_chunk(m, chat);
        last["attestation_receipt"] = stream_receipt;
        stream += sse_event(last);
        stream += kSseDone;
        v = verify::verify_receipt(attestation, stream_receipt.dump(), stream, receipt_test_policy());
        EXPECT_TRUE(v.accepted) << chat << logprobs << " stream " << include_usage << ": " << v.failed_step << ": "
                                << v.message;
      }
    }
  }
}

TEST(Receipts, ToolCallsVerifyAsBodyAndAsStream) {
  Attestor a(receipt_test_config());
  const std::string attestation = a.attest(tee::Nonce{}, receipt_test_model()).dump();
  const ResponseMeta m = receipt_test_meta(true);
  std::vector<ChoiceOutput> choices(1);
  choices[0].text = "Checking.";
  choices[0].tool_calls = {{"call_1", "get_weather", "{\"city\":\"Paris\"}"}, {"call_2", "get_time", "{}"}};
  json body = chat_completion(m, choices, receipt_test_usage());
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  json receipt = a.sign_receipt(receipt_test_receipt(m, "chat.completion", false, body["choices"]));
  body["attestation_receipt"] = receipt;
  verify::ReceiptResult v = verify::verify_receipt(attestation, receipt.dump(), json_text(body), receipt_test_policy());
  EXPECT_TRUE(v.accepted) << v.failed_step << ": " << v.message;

  std::string stream = sse_event(chat_chunk_role(m, 0, false));
  stream += sse_event(chat_chunk_delta(m, 0, "Checking.", nullptr, false));
  stream += sse_event(chat_chunk_delta(m, 0, "", nullptr, false, {}, tool_calls_json({&choices[0].tool_calls[0], 1}, 0)));
  stream += sse_event(chat_chunk_delta(m, 0, "", nullptr, false, {}, tool_calls_json({&choices[0].tool_calls[1], 1}, 1)));
  stream += sse_event(chat_chunk_finish(m, 0, "tool_calls", nullptr, false));
  json stream_receipt = a.sign_receipt(receipt_test_receipt(m, "chat.completion.chunk", true, body["choices"]));
  json last = receipt_chunk(m, true);
  last["attestation_receipt"] = stream_receipt;
  stream += sse_event(last);
  stream += kSseDone;
  v = verify::verify_receipt(attestation, stream_receipt.dump(), stream, receipt_test_policy());
  EXPECT_TRUE(v.accepted) << v.failed_step << ": " << v.message;
  // A stream that drops a call is not what was signed.
  const std::string dropped_call = sse_event(chat_chunk_delta(m, 0, "", nullptr, false, {}, tool_calls_json({&choices[0].tool_calls[1], 1}, 1)));
  std::string tampered = stream;
  tampered.erase(tampered.find(dropped_call), dropped_call.size());
  EXPECT_FALSE(verify::verify_receipt(attestation, stream_receipt.dump(), tampered, receipt_test_policy()).accepted);
}

TEST(Receipts, AReceiptOfAnotherBootFailsAgainstThisBootsAttestation) {
  Attestor first(receipt_test_config());
  Attestor second(receipt_test_config());
  const ResponseMeta m = receipt_test_meta(true);
  const json body = chat_completion(m, receipt_test_choices(true, false), receipt_test_usage());
  const json receipt = second.sign_receipt(receipt_test_receipt(m, "chat.completion", false, body["choices"]));
  const verify::ReceiptResult v = verify::verify_receipt(first.attest(tee::Nonce{}, receipt_test_model()).dump(),
                                                         receipt.dump(), std::nullopt, receipt_test_policy());
  EXPECT_EQ(v.failed_step, "receipt_key_unbound") << v.message;
  EXPECT_TRUE(verify::verify_receipt(second.attest(tee::Nonce{}, receipt_test_model()).dump(), receipt.dump(),
                                     std::nullopt, receipt_test_policy())
                  .accepted);
}

}  // namespace
}  // namespace a3s::power::server

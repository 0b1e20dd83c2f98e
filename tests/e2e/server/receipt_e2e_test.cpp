// Signed receipts end to end: the real server in TEE mode (development policy, simulated evidence)
// answers chat and text completions, streamed and not, each with an attestation_receipt; the saved
// attestation, receipt and response verify with `a3s-power-verify receipt`; one flipped byte in a
// receipt or in a response fails at a named step; and a receipt of another boot of the server fails
// against this boot's attestation.
#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/hex.h"
#include "crypto/sha256.h"
#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;

std::string receipt_e2e_model_sha256() {
  std::ifstream in(stories_model(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  return to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
}

std::string receipt_e2e_config(const TempDir& dir, const std::string& extra = {}) {
  return dir.write("power.hcl", "tee_mode = true\ntee_policy = \"development\"\ntee_device_root = \"" + dir.path() +
                                    "\"\nmodel_hashes = { \"stories260K\" = \"sha256:" + receipt_e2e_model_sha256() +
                                    "\" }\n" + extra);
}

std::string receipt_e2e_nonce() {
  std::array<uint8_t, 32> n{};
  EXPECT_EQ(RAND_bytes(n.data(), static_cast<int>(n.size())), 1);
  return to_hex(n);
}

// One request's saved files.
struct SavedExchange {
  std::string response_path, receipt_path;
  std::string response;  // as received
  json receipt;
};

// The receipt of a JSON body, or of a stream's last chunk before [DONE].
json receipt_of(const std::string& body, bool stream) {
  if (!stream) return json::parse(body).at("attestation_receipt");
  std::vector<std::string> payloads;
  std::string problem;
  EXPECT_TRUE(split_sse(body, payloads, problem)) << problem;
  EXPECT_GE(payloads.size(), 2u);
  EXPECT_EQ(payloads.back(), "[DONE]");
  const json last = json::parse(payloads[payloads.size() - 2]);
  EXPECT_TRUE(last["choices"].empty());
  return last.at("attestation_receipt");
}

class ReceiptE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    server_ = new ServerProcess({"--config", receipt_e2e_config(*dir_), "--model", stories_model()});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << server_->log(); }

  static std::string save_attestation(ServerProcess& s, const std::string& name) {
    const HttpResult r = http("GET", s.url("/v1/attestation?nonce=" + receipt_e2e_nonce() + "&model=stories260K"));
    EXPECT_EQ(r.status, 200) << r.body;
    return dir_->write(name, r.body);
  }

  static SavedExchange exchange(ServerProcess& s, const std::string& name, bool chat, bool stream,
                                bool include_usage = false, const std::string& cache_key = {}, bool echo = false,
                                const json& extra = json::object()) {
    json req = {{"model", "stories260K"}, {"max_tokens", 12}, {"temperature", 0}};
    for (auto it = extra.begin(); it != extra.end(); ++it) req[it.key()] = *it;
    if (echo) req["echo"] = true;
    if (!cache_key.empty()) req["prompt_cache_key"] = cache_key;
    // A keyed request gets a prompt long enough that its reused part shows through rounding.
    const std::string content =
        cache_key.empty() ? "Once upon a time" : "Once upon a time there was a girl named Lily who had a red ball and a dog";
    if (chat) req["messages"] = json::array({{{"role", "user"}, {"content", content}}});
    else req["prompt"] = "Once upon a time";
    if (stream) req["stream"] = true;
    if (include_usage) req["stream_options"] = {{"include_usage", true}};
    const HttpResult r = http("POST", s.url(chat ? "/v1/chat/completions" : "/v1/completions"), req.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    SavedExchange e;
    e.response = r.body;
    e.receipt = receipt_of(r.body, stream);
    e.response_path = dir_->write(name + ".response", r.body);
    e.receipt_path = dir_->write(name + ".receipt.json", e.receipt.dump());
    return e;
  }

  static ProcessResult verify(const std::string& attestation, const std::string& receipt,
                              const std::string& response = {}, const std::string& extra = " --allow-simulated") {
    std::string command = bin_dir() + "/a3s-power-verify receipt --format json --model stories260K --expected-hash sha256:" +
                          receipt_e2e_model_sha256() + " --attestation " + shell_quote(attestation) + " --receipt " +
                          shell_quote(receipt) + extra;
    if (!response.empty()) command += " --response " + shell_quote(response);
    return run_shell(command, false);
  }

  static std::string step_of(const ProcessResult& r) {
    EXPECT_EQ(r.status, 3) << r.out;
    return json::parse(r.out).value("failed_step", "");
  }

  static inline TempDir* dir_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(ReceiptE2E, EveryGeneratingResponseCarriesAReceiptThatVerifies) {
  const std::string attestation = save_attestation(*server_, "attestation.json");
  const json att = json::parse(std::ifstream(attestation));
  struct Case {
    const char* name;
    bool chat, stream, usage, echo;
    json extra = json::object();
  };
  // n choices sampled with a seed, with log probabilities: the digest covers every choice and its
  // log probabilities, reassembled from the interleaved chunks of a stream.
  const json chat_n = {{"n", 2}, {"temperature", 0.9}, {"seed", 5}, {"logprobs", true}, {"top_logprobs", 3}};
  const json text_n = {{"n", 2}, {"temperature", 0.9}, {"seed", 5}, {"logprobs", 3}};
  // echo: the receipt's output digest covers the echoed prompt, as the body and the stream carry it.
  for (const Case& c : {Case{"chat", true, false, false, false}, Case{"chat-stream", true, true, false, false},
                        Case{"chat-stream-usage", true, true, true, false}, Case{"text", false, false, false, false},
                        Case{"text-stream", false, true, false, false}, Case{"text-echo", false, false, false, true},
                        Case{"text-stream-echo", false, true, true, true},
                        Case{"chat-n-logprobs", true, false, false, false, chat_n},
                        Case{"chat-stream-n-logprobs", true, true, false, false, chat_n},
                        Case{"text-n-logprobs", false, false, false, false, text_n},
                        Case{"text-stream-n-logprobs", false, true, true, false, text_n}}) {
    SCOPED_TRACE(c.name);
    const SavedExchange e = exchange(*server_, c.name, c.chat, c.stream, c.usage, {}, c.echo, c.extra);
    if (c.extra.contains("n")) {
      EXPECT_NE(e.response.find("\"index\":1"), std::string::npos);
      EXPECT_NE(e.response.find(c.chat ? "\"top_logprobs\":[{" : "\"token_logprobs\":["), std::string::npos);
    }
    if (c.echo) {
      EXPECT_NE(e.response.find("Once upon a time"), std::string::npos);
    }
    EXPECT_EQ(e.receipt["schema"], "a3s-power.receipt.v1");
    EXPECT_EQ(e.receipt["key_id"], att["claims"]["receipt"]["key_id"]);
    EXPECT_EQ(e.receipt["model_sha256"], receipt_e2e_model_sha256());
    EXPECT_EQ(e.receipt["config_sha256"], att["claims"]["runtime"]["config_sha256"]);
    EXPECT_EQ(e.receipt["response"]["stream"], c.stream);
    EXPECT_EQ(e.receipt["prompt_cache"], json({{"used", false}, {"cached_tokens", 0}}));
    EXPECT_GT(e.receipt["usage"]["prompt_tokens"].get<int>(), 0);
    // No user text in the receipt.
    EXPECT_EQ(e.receipt.dump().find("Once upon"), std::string::npos);
    const ProcessResult ok = verify(attestation, e.receipt_path, e.response_path);
    ASSERT_EQ(ok.status, 0) << ok.out;
    const json verdict = json::parse(ok.out);
    EXPECT_EQ(verdict["accepted"], true);
    EXPECT_EQ(verdict["response_checked"], true);
    EXPECT_EQ(verdict["simulated"], true);
    // The text form names the verdict too.
    const ProcessResult text = run_shell(bin_dir() + "/a3s-power-verify receipt --model stories260K --expected-hash sha256:" +
                                             receipt_e2e_model_sha256() + " --allow-simulated --attestation " +
                                             attestation + " --receipt " + e.receipt_path,
                                         false);
    EXPECT_EQ(text.status, 0) << text.out;
    EXPECT_NE(text.out.find("ok   receipt_signature: "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("accepted: receipt "), std::string::npos) << text.out;
  }
}

TEST_F(ReceiptE2E, FlippedBytesFailAtNamedSteps) {
  const std::string attestation = save_attestation(*server_, "attestation-flip.json");
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "stream" : "body");
    const SavedExchange e = exchange(*server_, stream ? "flip-stream" : "flip-body", true, stream);
    // The signature: one hex digit of output_sha256 inside the receipt.
    std::string receipt = e.receipt.dump();
    const size_t at = receipt.find("\"output_sha256\":\"") + 17;
    receipt[at] = receipt[at] == '0' ? '1' : '0';
    EXPECT_EQ(step_of(verify(attestation, dir_->write("flipped.receipt.json", receipt), e.response_path)),
              "receipt_signature_invalid");
    // The key id: the receipt names another key.
    receipt = e.receipt.dump();
    const size_t kid = receipt.find("\"key_id\":\"") + 10;
    receipt[kid] = receipt[kid] == '0' ? '1' : '0';
    EXPECT_EQ(step_of(verify(attestation, dir_->write("flipped-key.receipt.json", receipt))), "receipt_key_unbound");
    // The response: one byte of the generated text.
    std::string response = e.response;
    const size_t content = response.rfind("\"content\":\"") + 11;
    ASSERT_LT(content, response.size());
    response[content] = static_cast<char>(response[content] ^ 0x01);
    EXPECT_EQ(step_of(verify(attestation, e.receipt_path, dir_->write("flipped.response", response))),
              "receipt_output_mismatch");
    // And a byte of the framing.
    response = e.response;
    response[1] = static_cast<char>(response[1] ^ 0x01);
    EXPECT_EQ(step_of(verify(attestation, e.receipt_path, dir_->write("flipped-frame.response", response))),
              "malformed_completion");
    // Without --allow-simulated the attestation itself is refused first.
    EXPECT_EQ(step_of(verify(attestation, e.receipt_path, e.response_path, "")), "simulated_evidence");
  }
}

TEST_F(ReceiptE2E, APromptCacheHitIsInTheReceiptAndMustMatchTheUsage) {
  const std::string attestation = save_attestation(*server_, "attestation-cache.json");
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "stream" : "body");
    const std::string key = stream ? "receipt-stream" : "receipt-body";
    const SavedExchange first = exchange(*server_, key + "-1", true, stream, stream, key);
    EXPECT_EQ(first.receipt["prompt_cache"], json({{"used", true}, {"cached_tokens", 0}}));
    const SavedExchange hit = exchange(*server_, key + "-2", true, stream, stream, key);
    const int cached = hit.receipt["prompt_cache"]["cached_tokens"].get<int>();
    EXPECT_EQ(hit.receipt["prompt_cache"]["used"], true);
    EXPECT_GT(cached, 0);
    EXPECT_EQ(cached % 10, 0) << "tee_mode rounds every count it shows";
    EXPECT_EQ(verify(attestation, hit.receipt_path, hit.response_path).status, 0);
    // A response that claims another cached count than the signed one fails.
    std::string response = hit.response;
    const std::string field = "\"cached_tokens\":" + std::to_string(cached);
    const size_t at = response.find(field);
    ASSERT_NE(at, std::string::npos) << response;
    response.replace(at, field.size(), "\"cached_tokens\":0");
    EXPECT_EQ(step_of(verify(attestation, hit.receipt_path, dir_->write(key + "-tampered.response", response))),
              "receipt_output_mismatch");
  }
}

TEST_F(ReceiptE2E, AReceiptOfAnotherBootFailsAgainstThisBootsAttestation) {
  const std::string attestation = save_attestation(*server_, "attestation-boot1.json");
  TempDir other_dir;
  ServerProcess second({"--config", receipt_e2e_config(other_dir), "--model", stories_model()});
  ASSERT_TRUE(second.ready()) << second.log();
  const SavedExchange e = exchange(second, "second-boot", true, false);
  EXPECT_EQ(step_of(verify(attestation, e.receipt_path, e.response_path)), "receipt_key_unbound");
  // Against its own boot's attestation the same receipt verifies.
  const std::string own = save_attestation(second, "attestation-boot2.json");
  EXPECT_EQ(verify(own, e.receipt_path, e.response_path).status, 0);
}

TEST_F(ReceiptE2E, RoundedCountsAreTheOnesTheBodyShows) {
  TempDir dir;
  ServerProcess s({"--config", receipt_e2e_config(dir, "suppress_token_metrics = true\n"), "--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  const SavedExchange e = exchange(s, "rounded", true, false);
  const json body = json::parse(e.response);
  EXPECT_EQ(e.receipt["usage"]["rounded"], true);
  EXPECT_EQ(e.receipt["usage"]["prompt_tokens"], body["usage"]["prompt_tokens"]);
  EXPECT_EQ(e.receipt["usage"]["completion_tokens"], body["usage"]["completion_tokens"]);
  EXPECT_EQ(body["usage"]["prompt_tokens"].get<int>() % 10, 0);
}

TEST(ReceiptE2EConfig, NoReceiptWithoutTeeMode) {
  ServerProcess s({"--model", stories_model()});
  ASSERT_TRUE(s.ready()) << s.log();
  const json req = {{"model", "stories260K"}, {"max_tokens", 4}, {"prompt", "Once"}};
  const HttpResult r = http("POST", s.url("/v1/completions"), req.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(json::parse(r.body).contains("attestation_receipt"));
}

}  // namespace
}  // namespace a3s::power::testing

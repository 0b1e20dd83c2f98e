// The embedded runtime (include/a3s/power/embedded.h), run the way an application runs it but under
// a seccomp filter that makes socket(2) fail (no_socket_filter.h, installed by main() before any
// thread exists): chat with a chat template (the same prompt as the text completion of the rendered
// template), streaming, tool calls in the template's syntax, cancellation (by the callback, by a
// token, while waiting in the queue), limits and request errors, encrypted, pinned and streamed
// models, and, with the simulated TEE layer, evidence and a receipt that the client verifier accepts.
#include <memory>
#include <algorithm>
#include <cmath>
#include <atomic>
#include <limits>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "a3s/power/embedded.h"
#include "a3s/power/verify_attestation.h"
#include "a3s/power/verify_receipt.h"
#include "base/hex.h"
#include "crypto/model_key.h"
#include "crypto/sha256.h"
#include "model/encrypted/encrypted_writer.h"
#include "no_socket_filter.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace a3s::power::testing {
namespace {

using nlohmann::json;
namespace emb = embedded;

// stories260K's SHA-256 (../shared/testdata/README.md).
constexpr const char* kStoriesSha256 = "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d";

// A chat template of no family (run by the Jinja interpreter) that makes the prompt plain text.
constexpr const char* kTemplate =
    "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]"
    "{% endif %}";

std::array<uint8_t, 32> bytes32_of_hex(const std::string& hex) {
  std::array<uint8_t, 32> out{};
  for (size_t i = 0; i < 32; ++i) out[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

emb::ModelOptions stories(const std::string& name = "stories") {
  emb::ModelOptions m;
  m.name = name;
  m.path = stories_model();
  m.threads = 1;
  return m;
}

emb::RuntimeOptions options_with(emb::ModelOptions model) {
  emb::RuntimeOptions o;
  o.models.push_back(std::move(model));
  return o;
}

emb::ChatRequest user_says(const std::string& text, int max_tokens) {
  emb::ChatRequest r;
  emb::Message m;
  m.role = "user";
  m.content = text;
  r.messages.push_back(m);
  r.sampling.temperature = 0;
  r.max_tokens = max_tokens;
  return r;
}

emb::CompletionRequest prompt_of(const std::string& text, int max_tokens) {
  emb::CompletionRequest r;
  r.prompt = text;
  r.sampling.temperature = 0;
  r.max_tokens = max_tokens;
  return r;
}

// The code of the a3s::power::Error `fn` throws ("" when it throws none).
template <typename Fn>
std::string error_code(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return "";
}

TEST(NoSocket, TheFilterIsInForce) { EXPECT_TRUE(sockets_refused()); }

TEST(EmbeddedRuntime, ChatRendersTheTemplateAndStreams) {
  emb::ModelOptions m = stories();
  m.chat_template = kTemplate;
  emb::Runtime rt(options_with(m));
  ASSERT_EQ(rt.models().size(), 1u);
  EXPECT_EQ(rt.models()[0].chat_template, "jinja");
  EXPECT_EQ(rt.models()[0].architecture, "llama");
  EXPECT_FALSE(rt.tee_enabled());

  std::string streamed;
  int deltas = 0;
  emb::RequestControl ctl;
  ctl.on_delta = [&](const emb::Delta& d) {
    streamed += d.content;
    ++deltas;
    EXPECT_TRUE(d.reasoning.empty());
    EXPECT_TRUE(d.tool_calls.empty());
    return true;
  };
  const emb::Result chat = rt.chat(user_says("Once upon a time", 12), ctl);
  // The template's prompt is plain text: the chat is the text completion of the rendered template.
  const emb::Result text = rt.complete(prompt_of("[user] Once upon a time\n[assistant]", 12));
  EXPECT_FALSE(chat.content.empty());
  EXPECT_EQ(chat.content, text.content);
  EXPECT_EQ(chat.usage.prompt_tokens, text.usage.prompt_tokens);
  EXPECT_EQ(chat.usage.completion_tokens, 12);
  EXPECT_EQ(chat.finish_reason, emb::FinishReason::kLength);
  EXPECT_EQ(streamed, chat.content);
  EXPECT_GT(deltas, 1);
  EXPECT_EQ(chat.model, "stories");
  EXPECT_EQ(chat.id.rfind("chatcmpl-", 0), 0u);
  EXPECT_TRUE(chat.receipt_json.empty());

  // The request and the answer as the server's OpenAI bodies.
  const json req = json::parse(chat.request_json);
  EXPECT_EQ(req["model"], "stories");
  EXPECT_EQ(req["messages"][0]["content"], "Once upon a time");
  const json body = json::parse(chat.response_json);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["choices"][0]["message"]["content"], chat.content);
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(body["usage"]["prompt_tokens"], chat.usage.prompt_tokens);
  EXPECT_FALSE(body.contains("attestation_receipt"));

  // The model's own template (none: the plain format, where a user-only conversation is its text)
  // gives another prompt.
  emb::Runtime plain(options_with(stories()));
  EXPECT_EQ(plain.models()[0].chat_template, "plain");
  const emb::Result raw = plain.chat(user_says("Once upon a time", 12));
  const emb::Result raw_text = plain.complete(prompt_of("Once upon a time", 12));
  EXPECT_EQ(raw.content, raw_text.content);
  EXPECT_EQ(raw.usage.prompt_tokens, raw_text.usage.prompt_tokens);
  EXPECT_LT(raw.usage.prompt_tokens, chat.usage.prompt_tokens);
}

TEST(EmbeddedRuntime, ToolCallsAreReadInTheTemplatesSyntax) {
  emb::ModelOptions m;
  m.name = "qwen";
  m.path = model_path("tiny-qwen2-f32");
  m.threads = 1;
  m.chat_template = read_text(testdata_dir() + "/chat-templates/Qwen-Qwen2.5-7B-Instruct.jinja");
  ASSERT_FALSE(m.chat_template.empty());
  emb::Runtime rt(options_with(m));

  emb::ChatRequest req = user_says("What is the weather in Oslo?", 256);
  emb::Tool weather;
  weather.name = "get_weather";
  weather.description = "The weather in a city";
  weather.parameters_json =
      R"({"type": "object", "properties": {"city": {"type": "string", "enum": ["Oslo", "Paris"]}}, "required": ["city"]})";
  req.tools.push_back(weather);
  req.tool_choice = emb::ToolChoice::kFunction;
  req.tool_choice_function = "get_weather";

  std::vector<std::string> streamed_calls;
  emb::RequestControl ctl;
  ctl.on_delta = [&](const emb::Delta& d) {
    for (const emb::ToolCall& c : d.tool_calls) streamed_calls.push_back(c.name);
    return true;
  };
  const emb::Result r = rt.chat(req, ctl);
  ASSERT_EQ(r.tool_calls.size(), 1u) << r.content;
  EXPECT_EQ(r.finish_reason, emb::FinishReason::kToolCalls);
  EXPECT_EQ(r.tool_calls[0].name, "get_weather");
  EXPECT_EQ(r.tool_calls[0].id.rfind("call_", 0), 0u);
  const json args = json::parse(r.tool_calls[0].arguments);
  ASSERT_TRUE(args.is_object());
  EXPECT_TRUE(args["city"] == "Oslo" || args["city"] == "Paris") << args;
  EXPECT_EQ(streamed_calls, std::vector<std::string>{"get_weather"});
  const json body = json::parse(r.response_json);
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(body["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "get_weather");
  // The tools are in the request body the receipt would cover, in the order given.
  const std::string& rj = r.request_json;
  EXPECT_LT(rj.find("\"type\":\"object\""), rj.find("\"properties\""));
}

TEST(EmbeddedRuntime, CancellationStopsTheRequest) {
  emb::RuntimeOptions o = options_with(stories());
  o.limits.max_concurrent_requests = 1;
  emb::Runtime rt(o);

  // The callback says stop.
  int seen = 0;
  emb::RequestControl stop_after_three;
  stop_after_three.on_delta = [&](const emb::Delta&) { return ++seen < 3; };
  EXPECT_EQ(error_code([&] { rt.chat(user_says("Once upon a time", 200), stop_after_three); }), "cancelled");
  EXPECT_EQ(seen, 3);

  // A token cancelled from the callback's thread while it generates.
  emb::RequestControl token_ctl;
  int pieces = 0;
  token_ctl.on_delta = [&](const emb::Delta&) {
    if (++pieces == 2) token_ctl.cancel.cancel();
    return true;
  };
  EXPECT_EQ(error_code([&] { rt.complete(prompt_of("Once upon a time", 200), token_ctl); }), "cancelled");
  EXPECT_LE(pieces, 4);

  // A token cancelled before the call: nothing runs.
  emb::RequestControl early;
  early.cancel.cancel();
  EXPECT_TRUE(early.cancel.cancelled());
  EXPECT_EQ(error_code([&] { rt.chat(user_says("Once upon a time", 8), early); }), "cancelled");

  // A request waiting in the queue behind a running one leaves at once when cancelled.
  std::mutex mu;
  std::condition_variable cv;
  bool running = false, release = false;
  emb::RequestControl holder;
  holder.on_delta = [&](const emb::Delta&) {
    std::unique_lock lk(mu);
    running = true;
    cv.notify_all();
    cv.wait(lk, [&] { return release; });
    return true;
  };
  auto first = std::async(std::launch::async, [&] { return rt.chat(user_says("Once upon a time", 4), holder).content; });
  {
    std::unique_lock lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, std::chrono::seconds(20), [&] { return running; }));
  }
  emb::RequestControl waiting;
  auto second = std::async(std::launch::async, [&] { return error_code([&] { rt.chat(user_says("Lily", 4), waiting); }); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = std::chrono::steady_clock::now();
  waiting.cancel.cancel();
  EXPECT_EQ(second.get(), "cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  {
    std::lock_guard lk(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(first.get(), ", there was a");

  // The runtime still answers.
  EXPECT_EQ(rt.chat(user_says("Once upon a time", 4)).content, ", there was a");
}

TEST(EmbeddedRuntime, LimitsAndRequestErrorsNameTheField) {
  emb::RuntimeOptions o = options_with(stories());
  o.models[0].context_tokens = 64;
  o.limits.max_concurrent_requests = 1;
  o.limits.max_queue = 0;
  o.limits.max_request_bytes = 4096;
  emb::Runtime rt(o);

  emb::ChatRequest hot = user_says("Once upon a time", 4);
  hot.sampling.temperature = 3;
  try {
    rt.chat(hot);
    FAIL() << "temperature 3 was accepted";
  } catch (const emb::RequestError& e) {
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_EQ(e.field(), "temperature");
  }
  emb::ChatRequest bad_tool = user_says("Once upon a time", 4);
  bad_tool.tools.push_back({"f", "", "{not json"});
  try {
    rt.chat(bad_tool);
    FAIL() << "invalid JSON was accepted";
  } catch (const emb::RequestError& e) {
    EXPECT_EQ(e.code(), "invalid_json");
    EXPECT_EQ(e.field(), "tools[0].function.parameters");
    EXPECT_EQ(std::string(e.what()).find("not json"), std::string::npos);
  }
  // Numbers JSON cannot carry are refused, not sent as null (which would mean the default).
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    emb::ChatRequest odd = user_says("Once upon a time", 4);
    odd.sampling.temperature = v;
    try {
      rt.chat(odd);
      FAIL() << "a temperature of " << v << " was accepted";
    } catch (const emb::RequestError& e) {
      EXPECT_EQ(e.code(), "invalid_request_error");
      EXPECT_EQ(e.field(), "temperature");
    }
  }
  emb::ChatRequest odd_penalty = user_says("Once upon a time", 4);
  odd_penalty.sampling.frequency_penalty = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_code([&] { rt.chat(odd_penalty); }), "invalid_request_error");
  // JSON nested far deeper than any schema is refused before it is written out (which recurses).
  emb::ChatRequest deep = user_says("Once upon a time", 4);
  deep.tools.push_back({"f", "", std::string(1000, '[') + std::string(1000, ']')});
  try {
    rt.chat(deep);
    FAIL() << "deeply nested parameters were accepted";
  } catch (const emb::RequestError& e) {
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_EQ(e.field(), "tools[0].function.parameters");
  }
  emb::ChatRequest other = user_says("Once upon a time", 4);
  other.model = "nope";
  EXPECT_EQ(error_code([&] { rt.chat(other); }), "model_not_found");
  EXPECT_EQ(error_code([&] { rt.complete(prompt_of(std::string(5000, 'a'), 4)); }), "request_too_large");
  std::string long_prompt;
  for (int i = 0; i < 40; ++i) long_prompt += "Once upon a time ";
  EXPECT_EQ(error_code([&] { rt.complete(prompt_of(long_prompt, 4)); }), "context_length_exceeded");
  emb::ChatRequest no_tools = user_says("Once upon a time", 4);
  no_tools.tool_choice = emb::ToolChoice::kRequired;
  EXPECT_EQ(error_code([&] { rt.chat(no_tools); }), "invalid_request_error");

  // One slot, no queue: a second request while the first runs is refused.
  std::mutex mu;
  std::condition_variable cv;
  bool running = false, release = false;
  emb::RequestControl holder;
  holder.on_delta = [&](const emb::Delta&) {
    std::unique_lock lk(mu);
    running = true;
    cv.notify_all();
    cv.wait(lk, [&] { return release; });
    return true;
  };
  auto first = std::async(std::launch::async, [&] { return rt.chat(user_says("Once upon a time", 2), holder).content; });
  {
    std::unique_lock lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, std::chrono::seconds(20), [&] { return running; }));
  }
  EXPECT_EQ(error_code([&] { rt.chat(user_says("Lily", 2)); }), "rate_limited");
  {
    std::lock_guard lk(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(first.get(), ", there");

  // Options are checked before anything loads.
  emb::RuntimeOptions none;
  EXPECT_EQ(error_code([&] { emb::Runtime r(none); }), "invalid_argument");
  emb::RuntimeOptions twice = options_with(stories());
  twice.models.push_back(stories());
  try {
    emb::Runtime r(twice);
    FAIL() << "a duplicate name was accepted";
  } catch (const emb::RequestError& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
    EXPECT_EQ(e.field(), "models[1].name");
  }
}

TEST(EmbeddedRuntime, PinnedEncryptedAndStreamedModelsAnswerAlike) {
  const std::string expected = ", there was a little girl";
  // Pinned: the digest is measured and checked.
  emb::ModelOptions pinned = stories();
  pinned.sha256_pin = bytes32_of_hex(kStoriesSha256);
  emb::Runtime rp(options_with(pinned));
  EXPECT_EQ(rp.models()[0].sha256, kStoriesSha256);
  EXPECT_EQ(rp.complete(prompt_of("Once upon a time", 8)).content, expected);
  emb::ModelOptions wrong = stories();
  wrong.sha256_pin = bytes32_of_hex(std::string(64, '0'));
  EXPECT_EQ(error_code([&] { emb::Runtime r(options_with(wrong)); }), "integrity_error");

  // Encrypted, decrypted into memory and streamed tensor by tensor.
  TempDir dir;
  const crypto::ModelKey key = crypto::ModelKey::generate();
  std::array<char, 64> hex{};
  key.to_hex(hex);
  const std::string key_file = dir.path() + "/model.key";
  std::ofstream(key_file) << std::string(hex.data(), hex.size()) << "\n";
  const std::string encrypted = dir.path() + "/stories.a3senc";
  {
    const int fd = ::open(encrypted.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    crypto::encrypt_file(stories_model(), fd, key);
    ::close(fd);
  }
  for (DecryptMode mode : {DecryptMode::Memory, DecryptMode::Stream}) {
    emb::ModelOptions e = stories();
    e.path = encrypted;
    e.model_key_file = key_file;
    e.decrypt = mode;
    if (mode == DecryptMode::Stream) e.weights = WeightsMode::Stream;
    emb::Runtime re(options_with(e));
    const emb::ModelInfo info = re.models()[0];
    EXPECT_EQ(info.sha256, kStoriesSha256);
    EXPECT_FALSE(info.encrypted_sha256.empty());
    EXPECT_EQ(info.weights, mode == DecryptMode::Stream ? WeightsMode::Stream : WeightsMode::Resident);
    EXPECT_EQ(re.complete(prompt_of("Once upon a time", 8)).content, expected) << to_string(mode);
  }
  emb::ModelOptions no_key = stories();
  no_key.path = encrypted;
  no_key.model_key_env = "A3S_EMBEDDED_TEST_NO_SUCH_KEY";
  EXPECT_EQ(error_code([&] { emb::Runtime r(options_with(no_key)); }), "model_key_error");

  // A plaintext model streamed from its file in a small budget.
  emb::ModelOptions streamed = stories();
  streamed.weights = WeightsMode::Stream;
  emb::Runtime rs(options_with(streamed));
  EXPECT_EQ(rs.models()[0].weights, WeightsMode::Stream);
  EXPECT_EQ(rs.complete(prompt_of("Once upon a time", 8)).content, expected);
}

TEST(EmbeddedRuntime, EvidenceAndReceiptsVerify) {
  emb::RuntimeOptions o = options_with(stories());
  o.models[0].chat_template = kTemplate;
  o.tee.enabled = true;
  o.tee.policy = TeePolicy::kDevelopment;
  o.tee.device_root = "/nonexistent-tee-root";  // no hardware: simulated evidence
  emb::Runtime rt(o);
  ASSERT_TRUE(rt.tee_enabled());
  const emb::TeeInfo info = rt.tee();
  EXPECT_EQ(info.tee_type, "simulated");
  EXPECT_FALSE(info.verifiable);
  EXPECT_EQ(info.receipt_key_id.size(), 16u);
  EXPECT_EQ(rt.models()[0].sha256, kStoriesSha256);  // measured at load

  emb::Nonce nonce{};
  for (size_t i = 0; i < nonce.size(); ++i) nonce[i] = static_cast<uint8_t>(i * 7 + 1);
  const std::string attestation = rt.attestation(nonce, "stories");
  verify::AttestationPolicy policy;
  policy.model = "stories";
  policy.model_sha256 = bytes32_of_hex(kStoriesSha256);
  policy.allow_simulated = true;
  const verify::AttestationResult a = verify::verify_attestation(attestation, nonce, policy);
  ASSERT_TRUE(a.accepted) << a.failed_step << ": " << a.message;
  EXPECT_EQ(a.tee_type, "simulated");
  EXPECT_EQ(json::parse(attestation)["claims"]["runtime"]["config_sha256"], info.config_sha256);
  EXPECT_EQ(error_code([&] { rt.attestation(nonce, "nope"); }), "model_not_found");

  std::string streamed;
  emb::RequestControl ctl;
  ctl.on_delta = [&](const emb::Delta& d) {
    streamed += d.content;
    return true;
  };
  const emb::Result r = rt.chat(user_says("Once upon a time", 8), ctl);
  EXPECT_EQ(streamed, r.content);
  ASSERT_FALSE(r.receipt_json.empty());
  const json receipt = json::parse(r.receipt_json);
  EXPECT_EQ(receipt["key_id"], info.receipt_key_id);
  EXPECT_EQ(receipt["model_sha256"], kStoriesSha256);
  EXPECT_EQ(receipt["response"]["id"], r.id);
  EXPECT_EQ(receipt["usage"]["completion_tokens"], 8);
  const std::string request_sha256 = to_hex(crypto::sha256(
      {reinterpret_cast<const uint8_t*>(r.request_json.data()), r.request_json.size()}));
  EXPECT_EQ(receipt["request_sha256"], request_sha256);
  EXPECT_EQ(json::parse(r.response_json)["attestation_receipt"], receipt);
  // No request or answer text in the receipt.
  EXPECT_EQ(r.receipt_json.find("Once upon"), std::string::npos);
  EXPECT_EQ(r.receipt_json.find(r.content), std::string::npos);

  // The client verifier accepts the receipt with the answer, and refuses a changed answer.
  const verify::ReceiptResult v = verify::verify_receipt(attestation, r.receipt_json, r.response_json, policy, nonce);
  EXPECT_TRUE(v.accepted) << v.failed_step << ": " << v.message;
  EXPECT_TRUE(v.response_checked);
  json changed = json::parse(r.response_json);
  changed["choices"][0]["message"]["content"] = "Once upon another time";
  const verify::ReceiptResult bad = verify::verify_receipt(attestation, r.receipt_json, changed.dump(), policy, nonce);
  EXPECT_FALSE(bad.accepted);
  EXPECT_EQ(bad.failed_step, "receipt_output_mismatch");

  // Text completions carry receipts too.
  const emb::Result t = rt.complete(prompt_of("Once upon a time", 4));
  const verify::ReceiptResult vt = verify::verify_receipt(attestation, t.receipt_json, t.response_json, policy, nonce);
  EXPECT_TRUE(vt.accepted) << vt.failed_step << ": " << vt.message;

  // Without the TEE layer there is no attestation.
  emb::Runtime plain(options_with(stories()));
  EXPECT_EQ(error_code([&] { plain.attestation(nonce, "stories"); }), "tee_not_enabled");
  EXPECT_EQ(error_code([&] { plain.tee(); }), "tee_not_enabled");
}

TEST(EmbeddedRuntime, DestroyingTheRuntimeWaitsForCallsStillSigningReceipts) {
  // Requests on other threads when the Runtime goes away end with an answer or an error, never by
  // touching freed members (a receipt is signed after the generation has ended). The destruction
  // starts at different points of the requests' lives over the rounds.
  for (int round = 0; round < 20; ++round) {
    emb::RuntimeOptions o = options_with(stories());
    o.tee.enabled = true;
    o.tee.policy = TeePolicy::kDevelopment;
    o.tee.device_root = "/nonexistent-tee-root";
    o.limits.max_concurrent_requests = 2;
    auto rt = std::make_unique<emb::Runtime>(o);
    emb::Runtime* raw = rt.get();
    std::atomic<int> started{0}, answered{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 2; ++t) {
      callers.emplace_back([&, t] {
        started.fetch_add(1);
        try {
          const emb::Result r = raw->complete(prompt_of("Once upon a time", 1 + (round + t) % 3));
          EXPECT_FALSE(r.receipt_json.empty());
          answered.fetch_add(1);
        } catch (const Error& e) {
          const std::string code = e.code();
          EXPECT_TRUE(code == "cancelled" || code == "service_unavailable") << code << ": " << e.what();
        }
      });
    }
    while (started.load() < 2) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(300 * (round % 10)));
    rt.reset();  // returns once both calls have left the runtime
    for (std::thread& c : callers) c.join();
    EXPECT_LE(answered.load(), 2);
  }
}

TEST(EmbeddedRuntime, StrictPolicyWithoutHardwareDoesNotStart) {
  emb::RuntimeOptions o = options_with(stories());
  o.tee.enabled = true;
  o.tee.device_root = "/nonexistent-tee-root";
  EXPECT_EQ(error_code([&] { emb::Runtime r(o); }), "tee_unavailable");
}

}  // namespace
}  // namespace a3s::power::testing

// The filter goes on before GoogleTest or the runtime start a thread, and stays for the process.
int main(int argc, char** argv) {
  a3s::power::testing::install_no_socket_filter();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// A3S Power, embedded: the inference server's models, chat templates, tools, sampling, attestation
// and receipts inside the embedding process, with no network code path (library a3s_embedded).
//
//   a3s::power::embedded::RuntimeOptions o;
//   o.models.push_back({.name = "stories", .path = "stories260K.gguf"});
//   a3s::power::embedded::Runtime rt(o);                  // loads the model, or throws
//   a3s::power::embedded::ChatRequest req;
//   req.messages.push_back({.role = "user", .content = "Once upon a time"});
//   a3s::power::embedded::RequestControl ctl;
//   ctl.on_delta = [](const a3s::power::embedded::Delta& d) { std::cout << d.content; return true; };
//   a3s::power::embedded::Result r = rt.chat(req, ctl);  // streams, then returns the whole answer
//
// What it is. A Runtime holds loaded models and runs chat and text completions on them exactly as
// `a3s-power serve` does: the same loader (plaintext, encrypted, pinned, signed, layer-streamed), the
// same request validation and limits (a request is checked as the OpenAI-compatible body it stands
// for, Result::request_json), the same chat templates (the model's own, or one given in
// ModelOptions::chat_template; the same Jinja interpreter and families), the same tool calling
// (tools rendered by the template, calls read back from the reply, `tool_choice` "required" or a
// named function enforced by a grammar), the same structured output (response_format, grammar) and
// the same sampling chain. With the TEE layer on (TeeOptions) it produces the server's attestation
// evidence (the body of GET /v1/attestation, for a client's `a3s-power-verify` or
// a3s/power/verify_attestation.h) and a signed receipt for every answer (docs/receipts.md).
//
// What it is not. It opens no socket, starts no listener and chooses no transport: evidence,
// receipts and answers are bytes the embedder carries over its own channel (RA-TLS, vsock, a pipe,
// shared memory). tests/unit/embedded runs it under a seccomp filter that makes socket() fail.
//
// Privacy. Prompt and completion text is never logged: the only output of the library is the engine's
// operational warnings on stderr (at the level A3S_POWER_LOG_LEVEL names, default "warn"), which never
// hold request text, keys or model bytes. The request types, the Result and the library's own copies
// of request data wipe their text when they are destroyed; the KV cache and the prompt tokens of a
// request are wiped when it ends.
//
// Threads. A Runtime is thread-safe: chat() and complete() may be called from many threads at once;
// at most Limits::max_concurrent_requests run at a time, each on a worker thread of the runtime, and
// the calling thread blocks until its request has ended. Callbacks (RequestControl::on_delta) run on
// that worker thread, in order, never two at once for one request; they must not call chat(),
// complete() or destroy the Runtime.
//
// Units. Sizes are bytes, token counts are tokens of the model's vocabulary, durations are
// std::chrono types, times are Unix seconds (UTC), digests are lowercase hex SHA-256 unless the type
// is a byte array.
//
// Errors. Every failure is thrown as a3s::power::Error (a3s/power/error.h) whose code() is a stable
// string; a failure that names a request field is a RequestError (below) carrying the field. Messages
// are one line and never contain prompt, message or completion text, or key material. The codes each
// call throws are listed at the call.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "a3s/power/error.h"
#include "a3s/power/settings.h"

namespace a3s::power::embedded {

// A SHA-256 digest or an Ed25519 public key: 32 raw bytes.
using Bytes32 = std::array<uint8_t, 32>;

// An error about one field of a request (or of RuntimeOptions): field() names it as the OpenAI body
// spells it ("messages[1].content", "tools[0].function.parameters", "temperature", …), or the option
// ("models[0].name"). The code is the check's: mostly invalid_request_error, invalid_json or
// unsupported_field for requests, invalid_argument for options; the message names the field and never
// repeats its value.
class RequestError : public Error {
 public:
  RequestError(ErrorCode code, const std::string& message, std::string field)
      : Error(code, message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_{};
};

// ---------------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------------

// One model to load (the options of a model block of the server's configuration,
// docs/configuration.md, for one model).
struct ModelOptions {
  // The name requests, ModelInfo and attestation claims use: 1..256 bytes of UTF-8 without control
  // characters (the server's model names). Required, unique.
  std::string name{};
  // A GGUF file (version 2 or 3), plaintext or encrypted (`a3s-power encrypt`; recognised by its
  // header). Required.
  std::string path{};

  // Where the weights live (docs/layer-streaming.md): Resident (mapped or in memory), Stream (block
  // tensors read when used, in a fixed budget) or Auto (Stream when the model does not fit
  // memory_budget_bytes). A plaintext model that is measured (TEE layer on, sha256_pin or
  // signing_key) cannot stream from its file: invalid_argument.
  WeightsMode weights = WeightsMode::Auto;
  uint64_t memory_budget_bytes = 0;  // memory the model may use (weights, KV cache, buffers); 0 = none
  uint64_t kv_cache_bytes = 0;       // the model's KV block pool; 0 = from the budget, else no limit
  // Context of one request (prompt + completion), in tokens; 0 = min(trained context, 4096), capped
  // by the budget and shared among the request slots (Limits::max_concurrent_requests).
  int context_tokens = 0;
  int threads = 0;          // engine worker threads; 0 = the physical cores
  int batch_tokens = 512;   // prefill batch, in tokens (>= 1)

  // Encrypted models (docs/encrypted-weights.md): how the weights are decrypted (Memory: locked RAM;
  // File: a sealed memfd; Stream: tensor by tensor, with weights = Stream) and where the 256-bit key
  // comes from: model_key_file (64 hex digits, as `a3s-power keygen` writes it) if set, else the
  // environment variable model_key_env ("" = A3S_MODEL_KEY). The key is read when the model loads,
  // held in locked memory only while the cipher is set up, and never appears in an error.
  DecryptMode decrypt = DecryptMode::Memory;
  std::string model_key_file{};
  std::string model_key_env{};

  // Integrity (docs/model-integrity.md), checked before the file is parsed: the SHA-256 the plaintext
  // GGUF bytes must have (a pin, `a3s-power hash`), and/or the Ed25519 public key whose signature
  // `<path>.sig` must verify (`a3s-power sign`). Either one makes the loader measure the bytes it
  // serves from.
  std::optional<Bytes32> sha256_pin{};
  std::optional<Bytes32> signing_key{};

  // Chat template: Jinja source that replaces the GGUF's tokenizer.chat_template ("" = the GGUF's; the
  // server's chat_template_file), and the template family for a model whose GGUF has none or one the
  // interpreter cannot parse ("" = none: such a model answers chat requests with
  // unsupported_chat_template; families: docs/chat-templates.md).
  std::string chat_template{};
  std::string chat_template_fallback{};
};

// Admission limits (the server's max_concurrent_requests, max_queue, queue_timeout_seconds and
// max_body_bytes).
struct Limits {
  int max_concurrent_requests = 1;  // requests running at once (1..1024), each with its own KV cache
  int max_queue = 16;               // requests that may wait for a slot beyond those (0..100000)
  // Longest wait for a slot, and then for KV cache blocks, before a request fails with queue_timeout.
  std::chrono::milliseconds queue_timeout{30'000};
  // Largest request, measured as its OpenAI body (Result::request_json), in bytes: request_too_large.
  size_t max_request_bytes = 4u << 20;
};

// The TEE layer (docs/tee.md): attestation evidence and receipts. Off by default.
struct TeeOptions {
  bool enabled = false;
  // kStrict: without SEV-SNP / TDX attestation hardware the Runtime does not start (tee_unavailable).
  // kDevelopment: without hardware, the simulated provider signs clearly labelled evidence
  // ("tee_type": "simulated") that a verifier accepts only when told to (--allow-simulated).
  TeePolicy policy = TeePolicy::kStrict;
  // Where /sys/kernel/config/tsm and /dev/sev-guest, /dev/tdx_guest are looked up (tests: a fake tree).
  std::string device_root = "/";
};

struct RuntimeOptions {
  std::vector<ModelOptions> models{};  // at least one; all are loaded by the constructor
  Limits limits{};
  TeeOptions tee{};
};

// A loaded model.
struct ModelInfo {
  std::string name{};
  std::string architecture{};        // general.architecture: "llama", "qwen2", …
  std::string file_type{};           // dominant weight type, e.g. "Q4_K"
  uint64_t file_size_bytes = 0;
  uint64_t n_params = 0;           // parameters
  int context_tokens = 0;          // the context of one request, in tokens
  int trained_context_tokens = 0;  // the context the model was trained with, in tokens
  int vocab_size = 0;              // tokens
  WeightsMode weights = WeightsMode::Resident;  // the residency in use: Resident or Stream
  std::string chat_template{};       // the template family in use ("jinja", "chatml", …, "plain"), or
                                   // "unsupported" (chat requests fail with unsupported_chat_template)
  std::string sha256{};              // plaintext GGUF digest measured at load ("" when not measured)
  std::string encrypted_sha256{};    // the encrypted file's digest ("" for a plaintext model)
  bool signature_verified = false; // signing_key was given and `<path>.sig` verified
  std::string system_fingerprint{};  // "fp_" + 12 hex: changes with the model file or the version
};

// ---------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------

// A tool call, in a request's history (Message::tool_calls) or in an answer (Result::tool_calls).
struct ToolCall {
  std::string id{};         // answers: a new id ("call_" + 24 hex, or 9 letters and digits for Mistral)
  std::string name{};       // the function
  std::string arguments{};  // a JSON object's text, as the model wrote it
  ~ToolCall();            // wipes the strings
};

// One message of a conversation (the OpenAI chat message).
struct Message {
  std::string role{};          // "system", "developer" (= system), "user", "assistant" or "tool"
  std::string content{};       // the text ("" for an assistant turn that only calls tools)
  std::string name{};          // optional participant name ("" = none)
  std::string tool_call_id{};  // role "tool": the id of the call it answers (required there)
  std::vector<ToolCall> tool_calls{};  // role "assistant": the calls it made
  ~Message();                        // wipes the strings
};

// A function the model may call (OpenAI's {"type": "function", "function": {…}}).
struct Tool {
  std::string name{};             // 1..64 of [A-Za-z0-9_-], unique in the request
  std::string description{};      // "" = none
  std::string parameters_json{};  // a JSON Schema of type "object" as JSON text ("" = any object);
                                // its key order is kept (templates print it; members are generated
                                // in it). What is enforced: docs/grammar.md
};

enum class ToolChoice {
  kAuto,      // the model may answer or call tools (the default with tools)
  kNone,      // the model does not call tools (they are still rendered by the template)
  kRequired,  // the answer is one or more calls (enforced by a grammar)
  kFunction,  // the answer calls ChatRequest::tool_choice_function (enforced by a grammar)
};

// One entry of logit_bias: added to the token's logit before sampling.
struct LogitBias {
  int32_t token = 0;  // a token id of the model's vocabulary (else invalid_request_error)
  double bias = 0;    // -100 .. 100
};

// Sampling (the server's fields and ranges; unset = OpenAI's defaults: temperature 1, top_p 1, no
// top_k / min_p, no penalties, a random seed).
struct Sampling {
  std::optional<double> temperature{};        // 0 .. 2; 0 = greedy (the most probable token)
  std::optional<double> top_p{};              // (0, 1]
  std::optional<int> top_k{};                 // >= 0 (0 = off)
  std::optional<double> min_p{};              // 0 .. 1
  std::optional<double> repeat_penalty{};     // (0, 100]
  std::optional<double> presence_penalty{};   // -2 .. 2
  std::optional<double> frequency_penalty{};  // -2 .. 2
  std::optional<int64_t> seed{};              // a seed makes sampling reproducible
  std::vector<LogitBias> logit_bias{};        // at most 1024 entries, one per token
};

// A chat completion (POST /v1/chat/completions).
struct ChatRequest {
  std::string model{};              // a loaded model's name; "" = the only loaded model
  std::vector<Message> messages{};  // at least one
  Sampling sampling{};
  // Most tokens to generate (>= 1); unset = until an end-of-generation token, a stop string or the
  // end of the context. Always capped by the room the prompt leaves in the context.
  std::optional<int> max_tokens{};
  std::vector<std::string> stop{};  // at most 4 non-empty strings; the answer ends before the first
  std::vector<Tool> tools{};        // up to 128; rendered by the chat template
  ToolChoice tool_choice = ToolChoice::kAuto;
  std::string tool_choice_function{};  // with kFunction: one of the tools' names
  bool parallel_tool_calls = true;   // false: at most one call per answer
  // Structured output (docs/grammar.md), not together with tools unless tool_choice is kNone:
  // response_format as JSON text ({"type": "json_object"} or {"type": "json_schema", "json_schema":
  // {"name", "schema", …}}; "" = text), or a grammar in the format of docs/grammar.md ("" = none).
  std::string response_format_json{};
  std::string grammar{};
  // Extra variables for the chat template, a JSON object as text ("" = none; at most 32 levels deep),
  // and the template variable reasoning_effort ("", "minimal", "low", "medium" or "high").
  std::string chat_template_kwargs_json{};
  std::string reasoning_effort{};
  ~ChatRequest();  // wipes the strings
};

// A text completion (POST /v1/completions): the prompt is the model's raw input (BOS added when the
// model wants one; special-token text in it stays text).
struct CompletionRequest {
  std::string model{};  // a loaded model's name; "" = the only loaded model
  std::string prompt{};
  // Fill in the middle: the answer goes between prompt and suffix (a model with FIM tokens only:
  // else unsupported_field "suffix").
  std::optional<std::string> suffix{};
  Sampling sampling{};
  std::optional<int> max_tokens{};  // as ChatRequest::max_tokens
  std::vector<std::string> stop{};  // as ChatRequest::stop
  std::string grammar{};            // as ChatRequest::grammar
  ~CompletionRequest();           // wipes the strings
};

// ---------------------------------------------------------------------------------------------------
// Streaming, cancellation, results
// ---------------------------------------------------------------------------------------------------

// What one step of the generation made final. Text is whole UTF-8; text that may still turn out to be
// a stop string, a "<think>" tag or tool-call markup is held back until it cannot. Valid during the
// callback only.
struct Delta {
  std::string_view content{};             // answer text
  std::string_view reasoning{};           // a reasoning model's thinking (chat)
  std::span<const ToolCall> tool_calls{};  // calls completed with this step (chat with tools)
};

// Return false to stop the generation: the call then throws Error "cancelled".
using DeltaCallback = std::function<bool(const Delta&)>;

// Cancels requests from any thread. Copies share one flag; a token may serve several requests.
class CancelToken {
 public:
  CancelToken();
  // Stops every request that uses this token, now and later: a waiting one leaves the queue at once,
  // a running one stops at its next token. Those calls then throw Error "cancelled".
  void cancel() const noexcept;
  bool cancelled() const noexcept;  // whether cancel() was called on this token or a copy

  struct State;  // the flag and the requests that watch it (the library's)

 private:
  friend struct CancelTokenAccess;
  std::shared_ptr<State> state_;
};

// How the caller follows and stops one request.
struct RequestControl {
  DeltaCallback on_delta{};  // empty = no streaming (the answer arrives in the Result only)
  CancelToken cancel{};
};

enum class FinishReason {
  kStop,       // an end-of-generation token or a stop string
  kLength,     // max_tokens, or the context is full
  kToolCalls,  // the answer ended by itself with tool calls
};

struct Usage {
  int prompt_tokens = 0;      // the prompt after the chat template, BOS included
  int completion_tokens = 0;  // generated tokens
};

// One answer. Its text is request data: it is wiped when the Result is destroyed.
struct Result {
  std::string content{};               // the answer (chat: the message content; completion: the text)
  std::string reasoning{};             // chat: a reasoning model's thinking ("" otherwise)
  std::vector<ToolCall> tool_calls{};  // chat with tools: the calls, ids assigned
  FinishReason finish_reason = FinishReason::kStop;
  Usage usage{};
  std::string id{};      // "chatcmpl-" / "cmpl-" + 24 hex: the response's id
  int64_t created = 0; // Unix seconds: when the request was admitted
  std::string model{};   // the model that answered
  std::string system_fingerprint{};  // ModelInfo::system_fingerprint of that model
  // The request as the OpenAI-compatible body it stands for (compact JSON): what was validated, and
  // the exact bytes the receipt's request_sha256 covers.
  std::string request_json{};
  // The answer as the server's non-streaming OpenAI body (chat.completion / text_completion, compact
  // JSON), with "attestation_receipt" when receipts are on: the `response` a3s/power/verify_receipt.h
  // and `a3s-power-verify receipt --response` check against the receipt.
  std::string response_json{};
  // TEE layer on: the signed receipt (schema "a3s-power.receipt.v1", docs/receipts.md) as JSON text;
  // "" otherwise. It holds digests, counts and names only, no text.
  std::string receipt_json{};

  Result() = default;
  Result(Result&&) noexcept = default;
  Result& operator=(Result&&) noexcept = default;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result();  // wipes the strings
};

// ---------------------------------------------------------------------------------------------------
// Attestation
// ---------------------------------------------------------------------------------------------------

// The TEE layer in use.
struct TeeInfo {
  std::string tee_type{};        // "sev-snp", "tdx" or "simulated"
  std::string provider{};        // "configfs-tsm", "/dev/sev-guest", "/dev/tdx_guest" or "simulated"
  TeePolicy policy = TeePolicy::kStrict;
  bool verifiable = false;     // the evidence chains to a vendor root (false: simulated, TDREPORT)
  std::string receipt_key_id{};  // 16 hex: the key id of this Runtime's receipt key
  std::string config_sha256{};   // claims.runtime.config_sha256: the published configuration's digest
};

// A client's fresh nonce: 32 random bytes.
using Nonce = std::array<uint8_t, 32>;

// ---------------------------------------------------------------------------------------------------
// The runtime
// ---------------------------------------------------------------------------------------------------

class Runtime {
 public:
  // Checks the options, starts the TEE layer (when enabled: before any model loads; its evidence
  // provider passes a self-test), loads every model, and starts the request workers. Opens no
  // socket. Throws:
  //   invalid_argument      an option out of range, no model, a duplicate or invalid name (a
  //                         RequestError naming "models[i].name", "limits.max_queue", …), or a
  //                         measured plaintext model asked to stream
  //   io_error, invalid_model, unsupported_tensor_type, unsupported_architecture,
  //   unsupported_model_feature          the file cannot be served (as `a3s-power serve`)
  //   model_key_error, model_key_mismatch, decryption_failed   an encrypted model's key or bytes
  //   integrity_error       the digest differs from sha256_pin, or the signature is missing/invalid
  //   resource_exhausted    memory or threads unavailable
  //   tee_unavailable       TEE enabled, strict policy, no attestation hardware
  //   attestation_failed    the attestation hardware failed its self-test
  explicit Runtime(const RuntimeOptions& options);
  // Cancels the requests still running or waiting (they throw cancelled / service_unavailable), waits
  // until every call other threads have inside chat(), complete() or attestation() has returned, then
  // wipes and frees the models and their caches. No call may begin once destruction has begun.
  ~Runtime();
  // A moved-from Runtime may only be destroyed or assigned to.
  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  std::vector<ModelInfo> models() const;  // the loaded models, sorted by name

  // Runs one chat completion: the messages rendered with the model's chat template, generation with
  // the request's sampling, the answer's thinking and tool calls read as the server reads them.
  // Blocks until the answer is complete; control.on_delta sees it as it is generated. Throws:
  //   RequestError (invalid_request_error, invalid_json, unsupported_field) a field the server would
  //                         refuse, named; request_too_large over Limits::max_request_bytes
  //   model_not_found       no loaded model has that name (model "" with several loaded:
  //                         RequestError invalid_request_error naming "model")
  //   unsupported_chat_template   the model's template cannot render chat (and no fallback)
  //   context_length_exceeded     the prompt does not fit the context (never truncated)
  //   rate_limited          max_concurrent_requests + max_queue requests already admitted
  //   queue_timeout         no slot or no KV cache blocks within Limits::queue_timeout
  //   cancelled             the CancelToken was cancelled, or on_delta returned false
  //   service_unavailable   the Runtime is being destroyed
  //   internal_error        the generation failed (out of memory, …)
  //   attestation_failed    TEE layer on: the receipt could not be signed
  // An exception thrown by on_delta stops the generation and is rethrown here as it is.
  Result chat(const ChatRequest& request, const RequestControl& control = {});

  // Runs one text completion; as chat(), without templates, tools or thinking.
  Result complete(const CompletionRequest& request, const RequestControl& control = {});

  // Whether the TEE layer is on, and what it is (tee_not_enabled when it is off).
  bool tee_enabled() const noexcept;
  TeeInfo tee() const;

  // The attestation of `model` for a client's nonce: the JSON text of the server's GET
  // /v1/attestation body (tee/attestor.h; docs/tee.md): evidence from the platform whose report_data
  // is nonce || SHA-256(claims), the claims naming the model, its measured digest, this runtime's
  // version, its published configuration ("config") and its receipt key. A client checks it with
  // a3s/power/verify_attestation.h or `a3s-power-verify`, and receipts with verify_receipt.h. Each
  // call asks the platform for fresh evidence. Thread-safe. Throws tee_not_enabled, model_not_found,
  // attestation_failed.
  std::string attestation(const Nonce& nonce, std::string_view model) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace a3s::power::embedded

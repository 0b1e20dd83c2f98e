// The embedded runtime (include/a3s/power/embedded.h) on the serving layers: models are
// runtime::ModelRegistry entries loaded by load_engine_runtime, requests are the OpenAI bodies they
// stand for parsed by openai/openai_request.h, run by run_completion on a runtime::Scheduler slot, read
// by openai::ReplyReader and answered in the shapes of openai/openai_response.h; evidence and receipts
// are tee::Attestor's and openai::make_receipt's. Nothing here opens a socket.
#include <condition_variable>
#include <ctime>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "a3s/power/embedded.h"
#include "attestation/receipt.h"
#include "base/hex.h"
#include "chat/tool_calls.h"
#include "crypto/sha256.h"
#include "embedded/request_body.h"
#include "model/encrypted/key_provider.h"
#include "openai/api_error.h"
#include "openai/attested_model.h"
#include "openai/openai_request.h"
#include "openai/openai_response.h"
#include "openai/receipt.h"
#include "openai/reply_reader.h"
#include "privacy/wipe_text.h"
#include "runtime/completion.h"
#include "runtime/engine_runtime.h"
#include "runtime/model_registry.h"
#include "runtime/scheduler.h"
#include "tee/attestor.h"

namespace a3s::power::embedded {

// ---- the request types wipe what they hold ----

namespace {
void wipe_calls(std::vector<ToolCall>& calls) noexcept {
  for (ToolCall& c : calls) {
    privacy::wipe_string(c.id);
    privacy::wipe_string(c.name);
    privacy::wipe_string(c.arguments);
  }
}
}  // namespace

ToolCall::~ToolCall() {
  privacy::wipe_string(id);
  privacy::wipe_string(name);
  privacy::wipe_string(arguments);
}

Message::~Message() {
  privacy::wipe_string(role);
  privacy::wipe_string(content);
  privacy::wipe_string(name);
  privacy::wipe_string(tool_call_id);
  wipe_calls(tool_calls);
}

ChatRequest::~ChatRequest() {
  for (Tool& t : tools) {
    privacy::wipe_string(t.description);
    privacy::wipe_string(t.parameters_json);
  }
  for (std::string& s : stop) privacy::wipe_string(s);
  privacy::wipe_string(response_format_json);
  privacy::wipe_string(grammar);
  privacy::wipe_string(chat_template_kwargs_json);
  privacy::wipe_vector(sampling.logit_bias);
}

CompletionRequest::~CompletionRequest() {
  privacy::wipe_string(prompt);
  if (suffix) privacy::wipe_string(*suffix);
  for (std::string& s : stop) privacy::wipe_string(s);
  privacy::wipe_string(grammar);
  privacy::wipe_vector(sampling.logit_bias);
}

Result::~Result() {
  privacy::wipe_string(content);
  privacy::wipe_string(reasoning);
  wipe_calls(tool_calls);
  privacy::wipe_string(request_json);
  privacy::wipe_string(response_json);
}

// ---- cancellation ----

namespace {
// One request's cancel flag (the job's, which run_completion and the scheduler read) and the wake-up
// of the thread waiting for it.
struct Watch {
  std::shared_ptr<std::atomic<bool>> flag;
  std::function<void()> wake;
};
}  // namespace

struct CancelToken::State {
  std::atomic<bool> cancelled{false};
  std::mutex mu;
  std::map<const void*, Watch> watching;  // the requests running with this token
};

// Registers a request with its token for as long as it runs.
struct CancelTokenAccess {
  const CancelToken& token;
  const void* key;
  CancelTokenAccess(const CancelToken& t, const void* k, Watch w) : token(t), key(k) {
    std::lock_guard lk(token.state_->mu);
    token.state_->watching.emplace(key, std::move(w));
    if (token.state_->cancelled.load()) {
      Watch& mine = token.state_->watching.at(key);
      mine.flag->store(true);
    }
  }
  ~CancelTokenAccess() {
    std::lock_guard lk(token.state_->mu);
    token.state_->watching.erase(key);
  }
};

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::cancel() const noexcept {
  state_->cancelled.store(true);
  std::lock_guard lk(state_->mu);
  for (auto& [key, w] : state_->watching) {
    w.flag->store(true);
    if (w.wake) w.wake();
  }
}

bool CancelToken::cancelled() const noexcept { return state_->cancelled.load(); }

namespace {

using nlohmann::json;

// ---- errors ----

// The public form of an error: a RequestError when it names a field, else the Error as it is.
[[noreturn]] void throw_public(const Error& e) {
  const openai::ApiError api = openai::api_error_of(e);
  if (!api.param().empty()) throw RequestError(api.kind(), api.what(), api.param());
  throw Error(e.kind(), e.what());
}

[[noreturn]] void bad_option(const std::string& field, const std::string& what) {
  throw RequestError(codes::kInvalidArgument, "'" + field + "' " + what, field);
}

// ---- options ----

void check_options(const RuntimeOptions& o) {
  if (o.models.empty()) bad_option("models", "must name at least one model");
  const Limits& l = o.limits;
  if (l.max_concurrent_requests < 1 || l.max_concurrent_requests > 1024) {
    bad_option("limits.max_concurrent_requests", "must be from 1 to 1024");
  }
  if (l.max_queue < 0 || l.max_queue > 100000) bad_option("limits.max_queue", "must be from 0 to 100000");
  if (l.queue_timeout.count() <= 0) bad_option("limits.queue_timeout", "must be positive");
  if (l.max_request_bytes == 0) bad_option("limits.max_request_bytes", "must be positive");
  for (size_t i = 0; i < o.models.size(); ++i) {
    const ModelOptions& m = o.models[i];
    const std::string at = "models[" + std::to_string(i) + "].";
    if (m.path.empty()) bad_option(at + "path", "is required");
    if (m.context_tokens < 0) bad_option(at + "context_tokens", "must not be negative");
    if (m.threads < 0) bad_option(at + "threads", "must not be negative");
    if (m.batch_tokens < 1) bad_option(at + "batch_tokens", "must be at least 1");
  }
}

runtime::EngineRuntimeOptions engine_options(const ModelOptions& m, const RuntimeOptions& o) {
  runtime::EngineRuntimeOptions eo;
  eo.n_threads = m.threads;
  eo.n_batch = m.batch_tokens;
  eo.n_ctx = m.context_tokens;
  eo.n_parallel = o.limits.max_concurrent_requests;
  eo.weights = m.weights;
  eo.memory_budget = m.memory_budget_bytes;
  eo.kv_cache_bytes = m.kv_cache_bytes;
  eo.chat_template_fallback = m.chat_template_fallback;
  eo.chat_template = m.chat_template;
  eo.decrypt.mode = m.decrypt;
  if (!m.model_key_file.empty()) {
    eo.decrypt.key = crypto::file_key_provider(m.model_key_file);
  } else if (!m.model_key_env.empty()) {
    eo.decrypt.key = crypto::env_key_provider(m.model_key_env);
  }
  // With the TEE layer every model is measured from the bytes it is served from (the claims carry it).
  eo.integrity.measure = o.tee.enabled;
  eo.integrity.pin = m.sha256_pin;
  eo.integrity.signing_key = m.signing_key;
  return eo;
}

std::string sha256_hex(std::string_view text) {
  return to_hex(crypto::sha256({reinterpret_cast<const uint8_t*>(text.data()), text.size()}));
}

// The effective non-secret settings the attestation publishes (its "config"; their canonical
// digest is claims.runtime.config_sha256): what was loaded and how, never a key.
json published_config(const RuntimeOptions& o) {
  json models = json::array();
  for (const ModelOptions& m : o.models) {
    json e = json::object();
    e["name"] = m.name;
    e["path"] = m.path;
    e["weights"] = to_string(m.weights);
    e["memory_budget_bytes"] = m.memory_budget_bytes;
    e["kv_cache_bytes"] = m.kv_cache_bytes;
    e["context_tokens"] = m.context_tokens;
    e["threads"] = m.threads;
    e["batch_tokens"] = m.batch_tokens;
    e["decrypt"] = to_string(m.decrypt);
    if (!m.model_key_file.empty()) {
      e["model_key_source"] = {{"file", m.model_key_file}};
    } else {
      e["model_key_source"] = {{"env", m.model_key_env.empty() ? crypto::kDefaultModelKeyEnv : m.model_key_env}};
    }
    e["sha256_pin"] = m.sha256_pin ? json(to_hex(*m.sha256_pin)) : json(nullptr);
    e["signing_key"] = m.signing_key ? json(to_hex(*m.signing_key)) : json(nullptr);
    e["chat_template_sha256"] = m.chat_template.empty() ? json(nullptr) : json(sha256_hex(m.chat_template));
    e["chat_template_fallback"] = m.chat_template_fallback;
    models.push_back(std::move(e));
  }
  json j = json::object();
  j["runtime"] = "embedded";
  j["models"] = std::move(models);
  j["max_concurrent_requests"] = o.limits.max_concurrent_requests;
  j["max_queue"] = o.limits.max_queue;
  j["queue_timeout_ms"] = o.limits.queue_timeout.count();
  j["max_request_bytes"] = o.limits.max_request_bytes;
  j["tee_policy"] = to_string(o.tee.policy);
  j["tee_device_root"] = o.tee.device_root;
  return j;
}

// ---- one request ----

std::vector<ToolCall> public_calls(const std::vector<chat::ToolCall>& calls) {
  std::vector<ToolCall> out(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    out[i].id = calls[i].id;
    out[i].name = calls[i].name;
    out[i].arguments = calls[i].arguments;
  }
  return out;
}

// The events of one request's job (runtime/completion.h), on the worker thread: the reply read as the
// server reads it, handed to the caller's callback, and kept for the Result. The waiting caller
// reads the fields once `done` is set.
class RequestSink final : public runtime::CompletionSink {
 public:
  RequestSink(DeltaCallback on_delta, std::shared_ptr<std::atomic<bool>> cancel, bool digest_prompt)
      : on_delta_(std::move(on_delta)), cancel_(std::move(cancel)), digest_prompt_(digest_prompt) {}
  ~RequestSink() override {
    privacy::wipe_string(reply_content);
    privacy::wipe_string(reply_reasoning);
    openai::wipe_tool_calls(calls);
    if (result) privacy::wipe_string(result->text);
  }

  // The job's start: false when the caller has already given up on it (cancelled while it waited).
  bool begin() {
    std::lock_guard lk(mu_);
    if (abandoned_) return false;
    running_ = true;
    return true;
  }
  // The job's end (its captures are gone): wakes the caller.
  void end() {
    {
      std::lock_guard lk(mu_);
      done_ = true;
    }
    cv_.notify_all();
  }
  void wake() {
    { std::lock_guard lk(mu_); }  // a waiter between its check and its sleep is not missed
    cv_.notify_all();
  }
  // Blocks until the job has ended, or until it is cancelled before it started (then it is abandoned:
  // it will not run). True when it ended.
  bool wait() {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return done_ || (cancel_->load() && !running_); });
    if (done_) return true;
    abandoned_ = true;
    return false;
  }

  void reasoning(chat::ReasoningStart r) override { reasoning_start_ = r; }
  void tool_calls(chat::ToolCallSyntax s) override { syntax_ = s; }
  void started(std::span<const Token> prompt) override {
    prompt_tokens = static_cast<int>(prompt.size());
    if (digest_prompt_) prompt_sha256 = tee::prompt_sha256(prompt);
    reader_.emplace(reasoning_start_, syntax_);
  }
  bool delta(std::string_view text) override {
    if (cancel_->load()) return false;
    openai::ReplyReader::Piece piece = reader_->push(text);
    if (!deliver(piece, /*end=*/false)) cancel_->store(true);
    return !cancel_->load();
  }
  void finished(const runtime::CompletionResult& r) override {
    result = r;
    if (r.finish == a3s::power::FinishReason::Cancelled) return;
    openai::ReplyReader::Piece rest = reader_->finish();
    deliver(rest, /*end=*/true);
  }
  void failed(const Error& e) override { error = openai::api_error_of(e); }

  // Written by the worker, read by the caller after wait().
  std::string reply_content, reply_reasoning;
  std::vector<chat::ToolCall> calls;
  int prompt_tokens = 0;
  crypto::Sha256Digest prompt_sha256{};
  std::optional<runtime::CompletionResult> result;
  std::optional<openai::ApiError> error;
  std::exception_ptr callback_error;

 private:
  // Keeps a piece for the Result and hands it to the callback; false when the callback says stop.
  bool deliver(openai::ReplyReader::Piece& piece, bool end) {
    if (piece.empty()) return true;
    reply_content += piece.content;
    reply_reasoning += piece.reasoning;
    const size_t first_call = calls.size();
    for (chat::ToolCall& c : piece.calls) calls.push_back(std::move(c));
    piece.calls.clear();
    if (!on_delta_ || callback_error) return true;
    std::vector<ToolCall> new_calls =
        public_calls(std::vector<chat::ToolCall>(calls.begin() + static_cast<std::ptrdiff_t>(first_call), calls.end()));
    try {
      const bool go = on_delta_(Delta{piece.content, piece.reasoning, new_calls});
      return go || end;  // a stop after the end changes nothing
    } catch (...) {
      callback_error = std::current_exception();
      return false;
    }
  }

  DeltaCallback on_delta_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool digest_prompt_;
  chat::ReasoningStart reasoning_start_ = chat::ReasoningStart::kNone;
  chat::ToolCallSyntax syntax_ = chat::ToolCallSyntax::kNone;
  std::optional<openai::ReplyReader> reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool running_ = false, abandoned_ = false, done_ = false;
};

// Ends the request when the job's last capture goes (after it ran, or when the scheduler drops it).
struct EndOnDrop {
  std::shared_ptr<RequestSink> sink;
  ~EndOnDrop() { sink->end(); }
};

// Wipes a JSON value when the scope ends (also on exceptions).
struct WipeJson {
  json& j;
  ~WipeJson() { privacy::wipe_json(j); }
};

FinishReason public_finish(const char* reason) {
  const std::string_view r = reason;
  if (r == "length") return FinishReason::kLength;
  if (r == "tool_calls") return FinishReason::kToolCalls;
  return FinishReason::kStop;
}

// The bytes of request text a typed request holds, before it is written as a body.
size_t text_bytes(const Sampling& s, const std::vector<std::string>& stop) {
  size_t n = s.logit_bias.size() * 32;
  for (const std::string& x : stop) n += x.size();
  return n;
}
size_t text_bytes(const ChatRequest& r) {
  size_t n = text_bytes(r.sampling, r.stop) + r.model.size() + r.response_format_json.size() + r.grammar.size() +
             r.chat_template_kwargs_json.size() + r.reasoning_effort.size() + r.tool_choice_function.size();
  for (const Message& m : r.messages) {
    n += m.role.size() + m.content.size() + m.name.size() + m.tool_call_id.size();
    for (const ToolCall& c : m.tool_calls) n += c.id.size() + c.name.size() + c.arguments.size();
  }
  for (const Tool& t : r.tools) n += t.name.size() + t.description.size() + t.parameters_json.size();
  return n;
}
size_t text_bytes(const CompletionRequest& r) {
  return text_bytes(r.sampling, r.stop) + r.model.size() + r.prompt.size() + (r.suffix ? r.suffix->size() : 0) +
         r.grammar.size();
}

}  // namespace

// ---- the runtime ----

class Runtime::Impl {
 public:
  explicit Impl(const RuntimeOptions& o) : limits_(o.limits) {
    check_options(o);
    if (o.tee.enabled) {
      // Before the models load: a strict runtime without attestation hardware stops here.
      tee::AttestorOptions ao;
      ao.policy = o.tee.policy;
      ao.device_root = o.tee.device_root;
      ao.published_config = published_config(o);
      attestor_ = std::make_unique<tee::Attestor>(std::move(ao));
    }
    std::map<std::string, runtime::EngineRuntimeOptions> per_model;
    for (const ModelOptions& m : o.models) per_model.emplace(m.name, engine_options(m, o));
    auto loader = [per_model](const std::string& name, const std::string& path) {
      return runtime::load_engine_runtime(name, path, per_model.at(name));
    };
    registry_ = std::make_shared<runtime::ModelRegistry>(loader, nullptr, /*serve_store=*/false);
    for (size_t i = 0; i < o.models.size(); ++i) {
      try {
        registry_->add_path(o.models[i].name, o.models[i].path);
      } catch (const Error& e) {
        throw RequestError(e.kind(), e.what(), "models[" + std::to_string(i) + "].name");
      }
    }
    registry_->load_all();
    runtime::SchedulerOptions so;
    so.slots = o.limits.max_concurrent_requests;
    so.max_queue = o.limits.max_queue;
    so.queue_timeout = o.limits.queue_timeout;
    scheduler_.emplace(so);
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(flight_mu_);
      closing_ = true;
    }
    if (scheduler_) scheduler_->shutdown();  // waiting requests: service_unavailable; running: cancelled
    // Callers still inside run() or attestation() (signing a receipt, say) use the members: they
    // leave before the members go.
    std::unique_lock<std::mutex> lock(flight_mu_);
    flight_cv_.wait(lock, [this] { return in_flight_ == 0; });
  }

  // Held by every call that uses the runtime's members; refused once destruction has begun.
  class Flight {
   public:
    explicit Flight(Impl& i) : i_(i) {
      std::lock_guard<std::mutex> lock(i_.flight_mu_);
      if (i_.closing_) throw Error(codes::kServiceUnavailable, "the runtime is being destroyed");
      ++i_.in_flight_;
    }
    ~Flight() {
      std::lock_guard<std::mutex> lock(i_.flight_mu_);
      if (--i_.in_flight_ == 0) i_.flight_cv_.notify_all();
    }
    Flight(const Flight&) = delete;
    Flight& operator=(const Flight&) = delete;

   private:
    Impl& i_;
  };

  std::vector<ModelInfo> models() const {
    std::vector<ModelInfo> out;
    for (const runtime::ModelStatus& s : registry_->list()) {
      if (!s.description) continue;
      const runtime::ModelDescription& d = *s.description;
      ModelInfo m;
      m.name = d.name;
      m.architecture = d.architecture;
      m.file_type = d.file_type;
      m.file_size_bytes = d.file_size;
      m.n_params = d.n_params;
      m.context_tokens = d.n_ctx;
      m.trained_context_tokens = d.n_ctx_train;
      m.vocab_size = d.n_vocab;
      m.weights = parse_weights_mode(d.weights).value_or(WeightsMode::Resident);
      m.chat_template = d.chat_template;
      m.sha256 = d.sha256;
      m.encrypted_sha256 = d.encrypted_sha256;
      m.signature_verified = d.signature == "verified";
      m.system_fingerprint = d.system_fingerprint;
      out.push_back(std::move(m));
    }
    return out;
  }

  // The name a request means: its own, or the only model's.
  std::string model_name(const std::string& requested) const {
    if (!requested.empty()) return requested;
    std::vector<runtime::ModelStatus> all = registry_->list();
    if (all.size() != 1) {
      throw RequestError(codes::kInvalidRequest, "'model' is required when more than one model is loaded", "model");
    }
    return all.front().name;
  }

  template <typename Request>
  Result run(const Request& typed, const RequestControl& control) {
    const Flight flight(*this);
    constexpr bool chat = std::is_same_v<Request, ChatRequest>;
    if (text_bytes(typed) > limits_.max_request_bytes) too_large();
    Result out;
    // The request as the body it stands for, parsed and checked by the server's parser.
    openai::ParsedCompletion parsed;
    {
      nlohmann::ordered_json body;
      if constexpr (std::is_same_v<Request, ChatRequest>) {
        body = chat_body(typed, model_name(typed.model));
      } else {
        body = completion_body(typed, model_name(typed.model));
      }
      try {
        out.request_json = body.dump();
      } catch (const nlohmann::json::exception&) {
        privacy::wipe_json(body);
        throw Error(codes::kInvalidRequest, "the request's text is not valid UTF-8");
      }
      privacy::wipe_json(body);
      if (out.request_json.size() > limits_.max_request_bytes) too_large();
      try {
        nlohmann::json j = openai::parse_json_object(out.request_json);
        const WipeJson wipe_j{j};
        parsed = chat ? openai::parse_chat_completion(j, out.request_json) : openai::parse_text_completion(j);
      } catch (const Error& e) {
        throw_public(e);
      }
    }
    std::shared_ptr<const runtime::ModelRuntime> model;
    try {
      model = registry_->acquire(parsed.request.model);
    } catch (const Error& e) {
      throw_public(e);
    }
    auto request = std::make_shared<runtime::CompletionRequest>(std::move(parsed.request));
    request->kv_wait = limits_.queue_timeout;

    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto sink = std::make_shared<RequestSink>(control.on_delta, cancel, attestor_ != nullptr);
    const CancelTokenAccess watch(control.cancel, sink.get(), Watch{cancel, [sink] { sink->wake(); }});
    openai::ResponseMeta meta;
    meta.id = openai::new_response_id(chat);
    meta.created = static_cast<int64_t>(std::time(nullptr));
    meta.model = model->description().name;
    meta.system_fingerprint = model->description().system_fingerprint;

    {
      runtime::Job job;
      job.cancel = cancel;
      std::shared_ptr<EndOnDrop> ender(new EndOnDrop{sink});
      job.run = [sink, ender, model, request, cancel](runtime::Slot& slot) {
        if (!sink->begin()) return;
        runtime::run_completion(slot, model, *request, *cancel, *sink);
      };
      job.reject = [sink, ender](const Error& e) { sink->failed(e); };
      ender.reset();
      try {
        scheduler_->submit(std::move(job));
      } catch (const Error& e) {
        throw_public(e);
      }
    }
    if (!sink->wait()) throw Error(codes::kCancelled, "the request was cancelled");
    if (sink->callback_error) std::rethrow_exception(sink->callback_error);
    if (sink->error) throw_public(*sink->error);
    if (!sink->result || sink->result->finish == a3s::power::FinishReason::Cancelled) {
      throw Error(codes::kCancelled, "the request was cancelled");
    }
    const runtime::CompletionResult& r = *sink->result;

    std::vector<openai::ChoiceOutput> choices(1);
    openai::ChoiceOutput& choice = choices[0];
    choice.text = sink->reply_content;
    choice.reasoning = sink->reply_reasoning;
    choice.finish = r.finish;
    choice.tool_calls = sink->calls;
    openai::UsageCounts usage;
    usage.prompt_tokens = r.prompt_tokens;
    usage.completion_tokens = r.completion_tokens;
    json doc = chat ? openai::chat_completion(meta, choices, usage) : openai::text_completion(meta, choices, usage);
    const WipeJson wipe_doc{doc};
    if (attestor_) {
      openai::ReceiptFacts facts;
      facts.chat = chat;
      facts.request_sha256 =
          crypto::sha256({reinterpret_cast<const uint8_t*>(out.request_json.data()), out.request_json.size()});
      facts.prompt_sha256 = sink->prompt_sha256;
      if (!decode_hex(model->description().sha256, facts.model_sha256)) {
        throw Error(codes::kAttestationFailed, "the model's bytes were not measured: no receipt can be signed");
      }
      facts.usage = usage;
      try {
        json receipt = openai::make_receipt(*attestor_, meta, choices, facts);
        out.receipt_json = receipt.dump();
        doc["attestation_receipt"] = std::move(receipt);
      } catch (const Error& e) {
        wipe_choices(choices);
        throw Error(codes::kAttestationFailed, std::string("the receipt could not be signed: ") + e.what());
      }
    }
    out.response_json = openai::json_text(doc);
    out.content = std::move(choice.text);
    out.reasoning = std::move(choice.reasoning);
    out.tool_calls = public_calls(choice.tool_calls);
    out.finish_reason = public_finish(openai::choice_finish_reason(r.finish, !choice.tool_calls.empty()));
    out.usage.prompt_tokens = r.prompt_tokens;
    out.usage.completion_tokens = r.completion_tokens;
    out.id = meta.id;
    out.created = meta.created;
    out.model = meta.model;
    out.system_fingerprint = meta.system_fingerprint;
    wipe_choices(choices);
    return out;
  }

  bool tee_enabled() const { return attestor_ != nullptr; }

  TeeInfo tee() const {
    if (!attestor_) throw Error(codes::kTeeNotEnabled, "the TEE layer is not enabled (TeeOptions::enabled)");
    TeeInfo t;
    t.tee_type = attestor_->tee_type();
    t.provider = attestor_->provider_name();
    t.policy = attestor_->policy();
    t.verifiable = attestor_->verifiable();
    t.receipt_key_id = attestor_->receipt_key_id();
    t.config_sha256 = to_hex(attestor_->config_sha256());
    return t;
  }

  std::string attestation(const Nonce& nonce, std::string_view model) {
    const Flight flight(*this);
    if (!attestor_) throw Error(codes::kTeeNotEnabled, "the TEE layer is not enabled (TeeOptions::enabled)");
    std::shared_ptr<const runtime::ModelRuntime> m = registry_->acquire(std::string(model));
    return attestor_->attest(nonce, openai::attested_model(m->description())).dump();
  }

 private:
  [[noreturn]] void too_large() const {
    throw Error(codes::kRequestTooLarge,
                "the request is larger than the limit of " + std::to_string(limits_.max_request_bytes) + " bytes");
  }
  static void wipe_choices(std::vector<openai::ChoiceOutput>& choices) {
    for (openai::ChoiceOutput& c : choices) {
      privacy::wipe_string(c.text);
      privacy::wipe_string(c.reasoning);
      openai::wipe_tool_calls(c.tool_calls);
    }
  }

  std::mutex flight_mu_;
  std::condition_variable flight_cv_;
  int in_flight_ = 0;     // calls inside run() or attestation()
  bool closing_ = false;  // the destructor has begun
  Limits limits_;
  std::unique_ptr<tee::Attestor> attestor_;
  std::shared_ptr<runtime::ModelRegistry> registry_;
  std::optional<runtime::Scheduler> scheduler_;
};

Runtime::Runtime(const RuntimeOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Runtime::~Runtime() = default;
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;

std::vector<ModelInfo> Runtime::models() const { return impl_->models(); }

Result Runtime::chat(const ChatRequest& request, const RequestControl& control) {
  return impl_->run(request, control);
}

Result Runtime::complete(const CompletionRequest& request, const RequestControl& control) {
  return impl_->run(request, control);
}

bool Runtime::tee_enabled() const noexcept { return impl_->tee_enabled(); }
TeeInfo Runtime::tee() const { return impl_->tee(); }

std::string Runtime::attestation(const Nonce& nonce, std::string_view model) const {
  return impl_->attestation(nonce, model);
}

}  // namespace a3s::power::embedded

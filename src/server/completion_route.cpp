// POST /v1/chat/completions and POST /v1/completions: parse, admit, run on a slot, and answer
// with one JSON document or an SSE stream. The request's text and the completion held here are wiped
// when the request ends (docs/privacy.md, "Memory"). In tee_mode every completed response carries a
// signed receipt (docs/receipts.md): a top-level "attestation_receipt" of the body, or of the stream's
// last chunk before [DONE] (the usage chunk when include_usage, else a chunk with empty choices).
#include <chrono>
#include <ctime>
#include <variant>

#include "server/api.h"
#include "server/api_error.h"
#include "server/async_queue.h"
#include "server/attestation.h"
#include "server/openai_request.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "attestation/receipt.h"
#include "chat/field_error.h"
#include "base/hex.h"
#include "crypto/sha256.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

namespace {

using Clock = std::chrono::steady_clock;

struct Started {
  int prompt_tokens;
  crypto::Sha256Digest prompt_sha256;  // tee::prompt_sha256 of the prompt's token ids
};
struct Delta {
  std::string text;
  Clock::time_point at;
  bool first;
};
struct Finished {
  runtime::CompletionResult result;
};
struct Failed {
  ApiError error;  // with the request field a template's FieldError names (its param)
};
using GenEvent = std::variant<Started, Delta, Finished, Failed>;

// Carries a job's events from the worker thread to the exchange's coroutine.
class QueueSink final : public runtime::CompletionSink {
 public:
  QueueSink(std::shared_ptr<AsyncQueue<GenEvent>> q, std::shared_ptr<std::atomic<bool>> cancel)
      : q_(std::move(q)), cancel_(std::move(cancel)) {}
  void started(std::span<const Token> prompt) override {
    q_->push(Started{static_cast<int>(prompt.size()), tee::prompt_sha256(prompt)});
  }
  bool delta(std::string_view text) override {
    if (cancel_->load()) return false;
    // The first token is always reported (time to first token), later ones only with text.
    if (!first_sent_ || !text.empty()) {
      q_->push(Delta{std::string(text), Clock::now(), !first_sent_});
      first_sent_ = true;
    }
    return !cancel_->load();
  }
  void finished(const runtime::CompletionResult& r) override { q_->push(Finished{r}); }
  void failed(const Error& e) override {
    const auto* field = dynamic_cast<const chat::FieldError*>(&e);
    q_->push(Failed{ApiError(e.kind(), e.what(), field != nullptr ? field->param() : std::string())});
  }

 private:
  std::shared_ptr<AsyncQueue<GenEvent>> q_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool first_sent_ = false;
};

// The receipt of one response (docs/receipts.md); its output digest is over `choices` as the client
// decodes them: the JSON text the body or the stream carries, parsed back.
nlohmann::json make_receipt(const Attestor& attestor, const ResponseMeta& meta, bool chat, bool stream,
                            const crypto::Sha256Digest& request_sha256, const crypto::Sha256Digest& prompt_sha256,
                            const crypto::Sha256Digest& model_sha256, const runtime::CompletionResult& shown,
                            bool rounded) {
  tee::Receipt rc;
  rc.response.id = meta.id;
  rc.response.object = chat ? (stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  rc.response.created = meta.created;
  rc.response.model = meta.model;
  rc.response.system_fingerprint = meta.system_fingerprint;
  rc.response.stream = stream;
  rc.request_sha256 = request_sha256;
  rc.prompt_sha256 = prompt_sha256;
  rc.model_sha256 = model_sha256;
  rc.usage.prompt_tokens = shown.prompt_tokens;
  rc.usage.completion_tokens = shown.completion_tokens;
  rc.usage.rounded = rounded;
  rc.prompt_cache_used = shown.cache_used;
  rc.prompt_cache_tokens = shown.cached_tokens;
  rc.completed_at = static_cast<int64_t>(std::time(nullptr));
  {
    nlohmann::json doc = chat ? chat_completion(meta, shown) : text_completion(meta, shown);
    nlohmann::json choices = nlohmann::json::parse(json_text(doc["choices"]));
    privacy::wipe_json(doc);
    try {
      rc.output_sha256 = tee::output_sha256(choices);
    } catch (...) {
      privacy::wipe_json(choices);
      throw;
    }
    privacy::wipe_json(choices);
  }
  return attestor.sign_receipt(std::move(rc));
}

std::optional<crypto::Sha256Digest> measured_digest(const std::string& hex) {
  crypto::Sha256Digest d{};
  if (hex.size() != 64 || !decode_hex(hex, d)) return std::nullopt;
  return d;
}

}  // namespace

asio::awaitable<void> Api::completions(Exchange& ex, bool chat, std::string identity) {
  const auto start = Clock::now();
  // Receipts (tee_mode): the request digest is over the body bytes exactly as received.
  const bool receipts = attestor_ != nullptr;
  crypto::Sha256Digest request_sha256{}, prompt_sha256{}, model_sha256{};
  bool model_measured = false;
  if (receipts) {
    const std::string& raw = ex.request().body;
    request_sha256 = crypto::sha256({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()});
  }
  nlohmann::json body = parse_json_object(ex.request().body);
  ParsedCompletion p;
  try {
    p = chat ? parse_chat_completion(body) : parse_text_completion(body);
  } catch (...) {
    privacy::wipe_json(body);
    throw;
  }
  privacy::wipe_json(body);  // the parsed copy of the request text; p.request wipes its own on destruction
  if (!registry_->contains(p.request.model)) {
    throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  }

  auto queue = std::make_shared<AsyncQueue<GenEvent>>(ex.executor());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto sink = std::make_shared<QueueSink>(queue, cancel);
  auto request = std::make_shared<runtime::CompletionRequest>(std::move(p.request));
  request->cache_identity = std::move(identity);
  request->cache_endpoint = chat ? "/v1/chat/completions" : "/v1/completions";
  request->kv_wait = std::chrono::milliseconds(static_cast<int64_t>(cfg_.queue_timeout_seconds * 1000.0));
  auto registry = registry_;
  auto cache = prompt_cache_;

  runtime::Job job;
  job.cancel = cancel;
  job.run = [registry, request, cancel, sink, cache](runtime::Slot& slot) {
    std::shared_ptr<const runtime::ModelRuntime> model;
    try {
      model = registry->acquire(request->model);
    } catch (const Error& e) {
      sink->failed(e);
      return;
    } catch (const std::exception&) {
      sink->failed(Error(codes::kInternal, "model load failed"));
      return;
    }
    runtime::run_completion(slot, model, *request, *cancel, *sink, cache.get());
  };
  job.reject = [sink](const Error& e) { sink->failed(e); };

  // A client that goes away cancels its generation (or its place in the queue).
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  scheduler_.submit(std::move(job));  // 429 when the queue is full

  ResponseMeta meta;
  meta.id = new_response_id(chat);
  meta.created = static_cast<int64_t>(std::time(nullptr));
  meta.model = request->model;

  bool streaming = false;
  bool usage_null = p.include_usage;
  bool ttft_recorded = false;
  double ttft_seconds = 0;
  std::string text;  // non-streaming: the whole completion
  privacy::WipeOnExit wipe_text(text);
  for (;;) {
    std::optional<GenEvent> ev = co_await queue->pop();
    if (!ev) {
      // Client gone (disconnect watch). The job stops at its next decode step.
      ex.record().status = ex.record().status ? ex.record().status : 499;
      co_return;
    }
    if (auto* st = std::get_if<Started>(&*ev)) {
      ex.record().prompt_tokens = shown_token_counts(st->prompt_tokens, 0, cfg_.suppress_token_metrics).prompt;
      if (auto s = registry_->status(request->model); s && s->description) {
        meta.system_fingerprint = s->description->system_fingerprint;
        if (const auto d = measured_digest(s->description->sha256)) {
          model_sha256 = *d;
          model_measured = true;
        }
      }
      prompt_sha256 = st->prompt_sha256;
      if (p.stream) {
        streaming = true;
        // No braced temporaries with string literals inside co_await (g++ 12 rejects them).
        std::vector<std::pair<std::string, std::string>> headers = {{"Cache-Control", "no-cache"},
                                                                    {"X-Accel-Buffering", "no"}};
        std::string content_type = "text/event-stream";
        bool ok = co_await ex.begin_stream(200, content_type, std::move(headers));
        if (ok && chat) ok = co_await ex.write_chunk(sse_event(chat_chunk_role(meta, usage_null)));
        if (ok && p.echo) {
          // echo: the prompt as given is the stream's first text.
          nlohmann::json chunk = text_chunk(meta, request->prompt, nullptr, usage_null);
          std::string event = sse_event(chunk);
          privacy::wipe_json(chunk);
          ok = co_await ex.write_chunk(std::move(event));
          if (receipts) text = request->prompt;  // the receipt's output digest covers it
        }
        if (!ok) {
          cancel->store(true);
          co_return;
        }
      }
    } else if (auto* d = std::get_if<Delta>(&*ev)) {
      if (d->first && !ttft_recorded) {
        ttft_recorded = true;
        ttft_seconds = shown_duration_seconds(std::chrono::duration<double>(d->at - start).count(), cfg_.redact_logs);
        metrics_.record_ttft(ex.record().route, ttft_seconds);
      }
      if (d->text.empty()) continue;
      privacy::WipeOnExit wipe_delta(d->text);
      if (streaming) {
        nlohmann::json chunk = chat ? chat_chunk_delta(meta, d->text, usage_null)
                                    : text_chunk(meta, d->text, nullptr, usage_null);
        std::string event = sse_event(chunk);
        privacy::wipe_json(chunk);
        if (!co_await ex.write_chunk(std::move(event))) {
          cancel->store(true);  // failed write: the client is gone or not reading
          co_return;
        }
        if (receipts) text += d->text;  // the receipt's output digest (wiped on exit)
      } else {
        text += d->text;
      }
    } else if (auto* f = std::get_if<Finished>(&*ev)) {
      runtime::CompletionResult r = std::move(f->result);
      privacy::WipeOnExit wipe_result(r.text);
      // Counts leave the process only as shown (rounded under suppress_token_metrics).
      const ShownTokenCounts shown =
          shown_token_counts(r.prompt_tokens, r.completion_tokens, cfg_.suppress_token_metrics);
      r.prompt_tokens = shown.prompt;
      r.completion_tokens = shown.completion;
      const int evaluated = shown_token_counts(r.prompt_tokens - r.cached_tokens, 0, cfg_.suppress_token_metrics).prompt;
      r.cached_tokens = shown_token_counts(r.cached_tokens, 0, cfg_.suppress_token_metrics).prompt;
      if (r.cache_used) metrics_.record_prompt_cache_tokens(r.cached_tokens, evaluated);
      ShownTimings timings;
      timings.prompt_eval_ms = shown_duration_seconds(r.prefill_ms / 1000.0, cfg_.redact_logs) * 1000.0;
      timings.ttft_ms = ttft_seconds * 1000.0;
      ex.record().prompt_tokens = r.prompt_tokens;
      ex.record().completion_tokens = r.completion_tokens;
      if (r.finish == FinishReason::Cancelled && stopping()) {
        Error e(codes::kServiceUnavailable, "the server is shutting down");
        if (streaming) {
          HttpResponse er = error_response(e);
          co_await ex.write_chunk(sse_event(std::string_view(er.body)));
          co_return;  // no [DONE]: the stream did not complete
        }
        throw e;
      }
      if (r.finish == FinishReason::Cancelled) co_return;  // client gone
      if (!streaming) {
        if (r.text.empty()) r.text = std::move(text);
        if (p.echo) r.text.insert(0, request->prompt);  // the prompt as given, then the completion
      }
      nlohmann::json receipt;
      if (receipts) {
        // In tee_mode every model is measured at load; a response about unmeasured bytes gets no receipt.
        if (!model_measured) {
          Error e(codes::kInternal, "the model's bytes were not measured: no receipt can be signed");
          if (!streaming) throw e;
          HttpResponse er = error_response(e);
          co_await ex.write_chunk(sse_event(std::string_view(er.body)));
          co_return;
        }
        if (streaming) r.text = text;  // what the deltas carried
        receipt = make_receipt(*attestor_, meta, chat, streaming, request_sha256, prompt_sha256, model_sha256, r,
                               cfg_.suppress_token_metrics);
      }
      if (streaming) {
        const char* reason = runtime::finish_reason_name(r.finish);
        nlohmann::json last = chat ? chat_chunk_finish(meta, reason, usage_null)
                                   : text_chunk(meta, "", reason, usage_null);
        std::string out = sse_event(last);
        if (p.include_usage) {
          nlohmann::json usage = usage_chunk(meta, chat, r);
          usage["timings"] = timings_json(timings);
          if (receipts) usage["attestation_receipt"] = std::move(receipt);
          out += sse_event(usage);
        } else if (receipts) {
          nlohmann::json last_chunk = receipt_chunk(meta, chat);
          last_chunk["attestation_receipt"] = std::move(receipt);
          out += sse_event(last_chunk);
        }
        out += kSseDone;
        co_await ex.write_chunk(std::move(out));
        co_await ex.end_stream();
      } else {
        nlohmann::json doc = chat ? chat_completion(meta, r) : text_completion(meta, r);
        doc["timings"] = timings_json(timings);
        if (receipts) doc["attestation_receipt"] = std::move(receipt);
        HttpResponse res;
        res.body = json_text(doc);
        privacy::wipe_json(doc);
        co_await ex.respond(std::move(res));  // the HTTP layer wipes the body once it is written
      }
      co_return;
    } else if (auto* fl = std::get_if<Failed>(&*ev)) {
      if (!streaming) throw fl->error;
      // Headers are out: report the error as a final event (no [DONE]).
      HttpResponse er = error_response(fl->error);
      co_await ex.write_chunk(sse_event(std::string_view(er.body)));
      co_return;
    }
  }
}

}  // namespace a3s::power::server

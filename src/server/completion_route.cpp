// POST /v1/chat/completions and POST /v1/completions: parse, admit, run on a slot, and answer
// with one JSON document or an SSE stream. The request's text and the completion held here are wiped
// when the request ends (docs/privacy.md, "Memory"). In tee_mode every completed response carries a
// signed receipt (docs/receipts.md): a top-level "attestation_receipt" of the body, or of the stream's
// last chunk before [DONE] (the usage chunk when include_usage, else a chunk with empty choices).
// `n` choices run as n jobs on the scheduler (choice i samples with seed + i); a stream interleaves
// their chunks, each with its choice's index. Log probabilities ride with the text they belong to: a
// token whose text is held back (a possible stop string, a partial character) reports them with the
// next delta or with its choice's finish chunk.
#include <chrono>
#include <optional>
#include <ctime>
#include <variant>

#include "server/api.h"
#include "server/api_error.h"
#include "server/async_queue.h"
#include "server/generation_job.h"
#include "server/attestation.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "openai/receipt.h"
#include "openai/reply_reader.h"
#include "chat/field_error.h"
#include "base/hex.h"
#include "crypto/sha256.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

namespace {

using Clock = std::chrono::steady_clock;

// One choice as the exchange assembles it.
struct ChoiceState {
  std::string text;                     // what the client was sent (streams: kept for the receipt only)
  std::string reasoning;                // the thinking of a reasoning model (chat), likewise
  chat::ToolCallSyntax tool_syntax = chat::ToolCallSyntax::kNone;  // with tools: how the reply writes calls
  std::optional<ReplyReader> reader;    // streams: thinking and tool calls read as the deltas come
  std::vector<chat::ToolCall> calls;    // the calls read so far, ids assigned
  std::vector<TokenLogprobs> logprobs;  // every generated token's, when asked for
  size_t piece_bytes = 0;               // text_offset of the next token (text completions)
  std::optional<runtime::CompletionResult> result;
  ~ChoiceState() {
    privacy::wipe_string(text);
    privacy::wipe_string(reasoning);
    wipe_logprobs(logprobs);
    if (result) privacy::wipe_string(result->text);
    wipe_tool_calls(calls);
  }
  // The calls `piece` completed, appended to `calls` and returned as a delta's tool_calls (null for
  // none).
  nlohmann::json take_calls(ReplyReader::Piece& piece) {
    if (piece.calls.empty()) return nullptr;
    nlohmann::json out = tool_calls_json(piece.calls, static_cast<int>(calls.size()));
    for (auto& c : piece.calls) calls.push_back(std::move(c));
    piece.calls.clear();
    return out;
  }
};

// The logprobs member of a chunk or choice carrying `tokens` (null when log probabilities are off).
nlohmann::json logprobs_member(bool wanted, bool chat, std::span<const TokenLogprobs> tokens, size_t first_offset) {
  if (!wanted) return nullptr;
  return chat ? chat_logprobs(tokens) : text_logprobs(tokens, first_offset);
}

// The choices of a finished response as the client sees them (the caller wipes them).
std::vector<ChoiceOutput> choice_outputs(const std::vector<ChoiceState>& states, bool chat, bool logprobs) {
  std::vector<ChoiceOutput> out(states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    out[i].text = states[i].text;
    out[i].reasoning = states[i].reasoning;
    out[i].finish = states[i].result ? states[i].result->finish : FinishReason::Stop;
    out[i].logprobs = logprobs_member(logprobs, chat, states[i].logprobs, 0);
    out[i].tool_calls = states[i].calls;
  }
  return out;
}

// One SSE event of a chunk; the chunk (generated text) is wiped once serialised.
std::string chunk_event(nlohmann::json chunk) {
  std::string event = sse_event(chunk);
  privacy::wipe_json(chunk);
  return event;
}

void wipe_outputs(std::vector<ChoiceOutput>& v) {
  for (ChoiceOutput& c : v) {
    privacy::wipe_string(c.text);
    privacy::wipe_string(c.reasoning);
    privacy::wipe_json(c.logprobs);
    wipe_tool_calls(c.tool_calls);
  }
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
    p = chat ? parse_chat_completion(body, ex.request().body) : parse_text_completion(body);
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
  auto request = std::make_shared<runtime::CompletionRequest>(std::move(p.request));
  request->cache_identity = std::move(identity);
  request->cache_endpoint = chat ? "/v1/chat/completions" : "/v1/completions";
  request->kv_wait = std::chrono::milliseconds(static_cast<int64_t>(cfg_.queue_timeout_seconds * 1000.0));
  const int n_choices = p.n;
  const bool logprobs = request->logprobs >= 0;

  // A client that goes away cancels its generations (or their places in the queue).
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  // One job per choice, each on a slot of its own (so the choices run side by side when slots are
  // free). A full queue refuses the request (429) and stops the choices already admitted.
  for (int choice = 0; choice < n_choices; ++choice) {
    try {
      submit_generation(scheduler_, registry_, request, queue, cancel, prompt_cache_, choice);
    } catch (...) {
      cancel->store(true);
      throw;
    }
  }

  ResponseMeta meta;
  meta.id = new_response_id(chat);
  meta.created = static_cast<int64_t>(std::time(nullptr));
  meta.model = request->model;

  bool started = false;
  chat::ReasoningStart reasoning_start = chat::ReasoningStart::kNone;
  bool streaming = false;
  bool usage_null = p.include_usage;
  bool ttft_recorded = false;
  double ttft_seconds = 0;
  std::vector<ChoiceState> choices(static_cast<size_t>(n_choices));
  int n_finished = 0;
  for (;;) {
    std::optional<GenEvent> ev = co_await queue->pop();
    if (!ev) {
      // Client gone (disconnect watch). The jobs stop at their next decode step.
      ex.record().status = ex.record().status ? ex.record().status : 499;
      co_return;
    }
    if (auto* st = std::get_if<Started>(&*ev)) {
      // Every choice evaluates the same prompt: the first to start stands for all.
      if (started) continue;
      started = true;
      ex.record().prompt_tokens = shown_token_counts(st->prompt_tokens, 0, cfg_.suppress_token_metrics).prompt;
      if (auto s = registry_->status(request->model); s && s->description) {
        meta.system_fingerprint = s->description->system_fingerprint;
        if (const auto d = measured_digest(s->description->sha256)) {
          model_sha256 = *d;
          model_measured = true;
        }
      }
      prompt_sha256 = st->prompt_sha256;
      reasoning_start = st->reasoning;
      for (ChoiceState& c : choices) {
        c.tool_syntax = st->tool_syntax;
        if (p.stream) c.reader.emplace(reasoning_start, st->tool_syntax);
      }
      if (p.stream) {
        streaming = true;
        bool ok = co_await begin_event_stream(ex);
        for (int i = 0; ok && i < n_choices; ++i) {
          // Events are built outside co_await: g++ 12 mishandles temporaries that live across one.
          if (chat) {
            std::string event = chunk_event(chat_chunk_role(meta, i, usage_null));
            ok = co_await ex.write_chunk(std::move(event));
          }
          if (ok && p.echo) {
            // echo: the prompt as given is each choice's first text.
            std::string event = chunk_event(text_chunk(meta, i, request->prompt, nullptr, nullptr, usage_null));
            ok = co_await ex.write_chunk(std::move(event));
            if (receipts) choices[static_cast<size_t>(i)].text = request->prompt;  // the receipt covers it
          }
        }
        if (!ok) {
          cancel->store(true);
          co_return;
        }
      }
    } else if (auto* d = std::get_if<Delta>(&*ev)) {
      privacy::WipeOnExit wipe_delta(d->text);
      ChoiceState& c = choices[static_cast<size_t>(d->choice)];
      if (d->first && !ttft_recorded) {
        ttft_recorded = true;
        ttft_seconds = shown_duration_seconds(std::chrono::duration<double>(d->at - start).count(), cfg_.redact_logs);
        metrics_.record_ttft(ex.record().route, ttft_seconds);
      }
      if (d->text.empty() && d->logprobs.empty()) continue;
      if (streaming) {
        // A reasoning model's delta: its thinking and its answer, as far as they are known yet, and
        // the tool calls it completes.
        ReplyReader::Piece parts = c.reader->push(d->text);
        nlohmann::json new_calls = c.take_calls(parts);
        if (!parts.content.empty() || !parts.reasoning.empty() || !d->logprobs.empty() || !new_calls.is_null()) {
          nlohmann::json lp = logprobs_member(logprobs, chat, d->logprobs, c.piece_bytes);
          std::string event =
              chunk_event(chat ? chat_chunk_delta(meta, d->choice, parts.content, std::move(lp), usage_null,
                                                  parts.reasoning, std::move(new_calls))
                               : text_chunk(meta, d->choice, parts.content, std::move(lp), nullptr, usage_null));
          if (!co_await ex.write_chunk(std::move(event))) {
            cancel->store(true);  // failed write: the client is gone or not reading
            wipe_logprobs(d->logprobs);
            co_return;
          }
        }
        if (receipts) {  // the receipt's output digest
          c.text += parts.content;
          c.reasoning += parts.reasoning;
        }
      } else {
        c.text += d->text;  // the body (split, for a reasoning model, when it is complete)
      }
      for (TokenLogprobs& t : d->logprobs) {
        c.piece_bytes += t.chosen.piece.size();
        if (!streaming || receipts) c.logprobs.push_back(std::move(t));
      }
      wipe_logprobs(d->logprobs);
    } else if (auto* f = std::get_if<Finished>(&*ev)) {
      ChoiceState& c = choices[static_cast<size_t>(f->choice)];
      c.result = std::move(f->result);
      runtime::CompletionResult& r = *c.result;
      if (r.finish == FinishReason::Cancelled && stopping()) {
        wipe_logprobs(f->logprobs);
        Error e(codes::kServiceUnavailable, "the server is shutting down");
        if (streaming) {
          HttpResponse er = error_response(e);
          co_await ex.write_chunk(sse_event(std::string_view(er.body)));
          co_return;  // no [DONE]: the stream did not complete
        }
        cancel->store(true);
        throw e;
      }
      if (r.finish == FinishReason::Cancelled) {  // client gone
        wipe_logprobs(f->logprobs);
        co_return;
      }
      if (!streaming) {
        if (!r.text.empty()) {
          privacy::wipe_string(c.text);
          c.text = r.text;
        }
        if (p.echo) c.text.insert(0, request->prompt);  // the prompt as given, then the completion
        if (reasoning_start != chat::ReasoningStart::kNone || c.tool_syntax != chat::ToolCallSyntax::kNone) {
          ReplyReader::Piece whole = ReplyReader::read_whole(c.text, reasoning_start, c.tool_syntax);
          privacy::wipe_string(c.text);
          c.text = std::move(whole.content);
          c.reasoning = std::move(whole.reasoning);
          c.calls = std::move(whole.calls);
          whole.calls.clear();
        }
      }
      if (streaming) {
        // What the splitter and the tool-call reader still held (a block cut by the end of the
        // reply, trailing text, an unclosed call).
        ReplyReader::Piece rest = c.reader->finish();
        nlohmann::json new_calls = c.take_calls(rest);
        if (!rest.content.empty() || !rest.reasoning.empty() || !new_calls.is_null()) {
          std::string event = chunk_event(
              chat_chunk_delta(meta, f->choice, rest.content, nullptr, usage_null, rest.reasoning, std::move(new_calls)));
          if (receipts) {
            c.text += rest.content;
            c.reasoning += rest.reasoning;
          }
          if (!co_await ex.write_chunk(std::move(event))) {
            cancel->store(true);
            wipe_logprobs(f->logprobs);
            co_return;
          }
        }
      }
      if (streaming) {
        // The finish chunk carries the log probabilities of tokens no delta carried (with log
        // probabilities on, always an object, so a stream reassembles what a body shows).
        nlohmann::json lp = logprobs_member(logprobs, chat, f->logprobs, c.piece_bytes);
        const char* reason = choice_finish_reason(r.finish, !c.calls.empty());
        std::string event = chunk_event(chat ? chat_chunk_finish(meta, f->choice, reason, std::move(lp), usage_null)
                                             : text_chunk(meta, f->choice, "", std::move(lp), reason, usage_null));
        if (!co_await ex.write_chunk(std::move(event))) {
          cancel->store(true);
          wipe_logprobs(f->logprobs);
          co_return;
        }
      }
      for (TokenLogprobs& t : f->logprobs) {
        c.piece_bytes += t.chosen.piece.size();
        if (!streaming || receipts) c.logprobs.push_back(std::move(t));
      }
      wipe_logprobs(f->logprobs);
      if (++n_finished < n_choices) continue;

      // Every choice is done: the usage, the receipt, the end of the stream or the body.
      const runtime::CompletionResult& first = *choices[0].result;
      int completion_tokens = 0;
      for (const ChoiceState& s : choices) completion_tokens += s.result->completion_tokens;
      // Counts leave the process only as shown (rounded under suppress_token_metrics).
      const ShownTokenCounts shown =
          shown_token_counts(first.prompt_tokens, completion_tokens, cfg_.suppress_token_metrics);
      UsageCounts usage;
      usage.prompt_tokens = shown.prompt;
      usage.completion_tokens = shown.completion;
      const int evaluated =
          shown_token_counts(first.prompt_tokens - first.cached_tokens, 0, cfg_.suppress_token_metrics).prompt;
      usage.cached_tokens = shown_token_counts(first.cached_tokens, 0, cfg_.suppress_token_metrics).prompt;
      if (first.cache_used) metrics_.record_prompt_cache_tokens(usage.cached_tokens, evaluated);
      ShownTimings timings;
      timings.prompt_eval_ms = shown_duration_seconds(first.prefill_ms / 1000.0, cfg_.redact_logs) * 1000.0;
      timings.ttft_ms = ttft_seconds * 1000.0;
      ex.record().prompt_tokens = usage.prompt_tokens;
      ex.record().completion_tokens = usage.completion_tokens;
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
        std::vector<ChoiceOutput> shown_choices = choice_outputs(choices, chat, logprobs);
        try {
          ReceiptFacts facts;
          facts.chat = chat;
          facts.stream = streaming;
          facts.request_sha256 = request_sha256;
          facts.prompt_sha256 = prompt_sha256;
          facts.model_sha256 = model_sha256;
          facts.usage = usage;
          facts.usage_rounded = cfg_.suppress_token_metrics;
          facts.prompt_cache_used = first.cache_used;
          receipt = make_receipt(*attestor_, meta, shown_choices, facts);
        } catch (...) {
          wipe_outputs(shown_choices);
          throw;
        }
        wipe_outputs(shown_choices);
      }
      if (streaming) {
        std::string out;
        if (p.include_usage) {
          nlohmann::json u = usage_chunk(meta, chat, usage);
          u["timings"] = timings_json(timings);
          if (receipts) u["attestation_receipt"] = std::move(receipt);
          out += sse_event(u);
        } else if (receipts) {
          nlohmann::json last_chunk = receipt_chunk(meta, chat);
          last_chunk["attestation_receipt"] = std::move(receipt);
          out += sse_event(last_chunk);
        }
        out += kSseDone;
        co_await ex.write_chunk(std::move(out));
        co_await ex.end_stream();
      } else {
        std::vector<ChoiceOutput> body_choices = choice_outputs(choices, chat, logprobs);
        nlohmann::json doc = chat ? chat_completion(meta, body_choices, usage) : text_completion(meta, body_choices, usage);
        wipe_outputs(body_choices);
        doc["timings"] = timings_json(timings);
        if (receipts) doc["attestation_receipt"] = std::move(receipt);
        HttpResponse res = json_response(std::move(doc));
        co_await ex.respond(std::move(res));
      }
      co_return;
    } else if (auto* fl = std::get_if<Failed>(&*ev)) {
      cancel->store(true);  // the other choices stop: the request has failed
      if (!streaming) throw fl->error;
      // Headers are out: report the error as a final event (no [DONE]).
      HttpResponse er = error_response(fl->error);
      co_await ex.write_chunk(sse_event(std::string_view(er.body)));
      co_return;
    }
  }
}

}  // namespace a3s::power::server

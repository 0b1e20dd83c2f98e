// Api::single_answer: one generation answered in an AnswerFormat (answer_format.h), as a body or as
// a stream. The request's text and the answer are wiped when the request ends (docs/privacy.md).
#include <variant>

#include "server/answer_format.h"
#include "server/api.h"
#include "server/api_error.h"
#include "server/generation_job.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "chat/reasoning.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

asio::awaitable<void> Api::single_answer(Exchange& ex, std::shared_ptr<runtime::CompletionRequest> request,
                                         bool stream, AnswerFormat& format) {
  auto queue = std::make_shared<AsyncQueue<GenEvent>>(ex.executor());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  request->kv_wait = std::chrono::milliseconds(static_cast<int64_t>(cfg_.queue_timeout_seconds * 1000.0));
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  submit_generation(scheduler_, registry_, request, queue, cancel, nullptr, 0);  // 429 when the queue is full

  bool streaming = false;
  chat::ReasoningStart reasoning_start = chat::ReasoningStart::kNone;
  std::optional<chat::ReasoningSplitter> splitter;  // drops a reasoning model's thinking
  chat::ToolCallSyntax tool_syntax = chat::ToolCallSyntax::kNone;
  std::optional<chat::ToolCallStream> tool_stream;  // streams with tools: reads the calls
  std::string text;                                 // the answer (streams: what the deltas carried)
  privacy::WipeOnExit wipe_text(text);
  std::vector<chat::ToolCall> calls;
  struct WipeCalls {
    std::vector<chat::ToolCall>& c;
    ~WipeCalls() { wipe_tool_calls(c); }
  } wipe_calls{calls};
  // Streams: the events of the answer text `content` makes final (through the tool-call reader when
  // there are tools), and of the calls completed with it; `end`: the reply is over.
  auto stream_events = [&](std::string content, bool end) {
    std::string events;
    if (tool_stream) {
      chat::ParsedReply r = tool_stream->push(content);
      if (end) {
        chat::ParsedReply rest = tool_stream->finish();
        r.content += rest.content;
        for (auto& c : rest.calls) r.calls.push_back(std::move(c));
        privacy::wipe_string(rest.content);
        privacy::wipe_string(rest.reasoning);
      }
      privacy::wipe_string(content);
      content = std::move(r.content);
      privacy::wipe_string(r.reasoning);
      if (!content.empty()) events += format.stream_delta(content);
      text += content;
      for (auto& c : r.calls) {
        c.id = new_tool_call_id(tool_syntax);
        events += format.stream_tool_call(c, static_cast<int>(calls.size()));
        calls.push_back(std::move(c));
      }
    } else {
      if (!content.empty()) events += format.stream_delta(content);
      text += content;
    }
    privacy::wipe_string(content);
    return events;
  };
  for (;;) {
    std::optional<GenEvent> ev = co_await queue->pop();
    if (!ev) {
      ex.record().status = ex.record().status ? ex.record().status : 499;  // client gone
      co_return;
    }
    if (auto* st = std::get_if<Started>(&*ev)) {
      AnswerUsage usage;
      usage.input_tokens = shown_token_counts(st->prompt_tokens, 0, cfg_.suppress_token_metrics).prompt;
      ex.record().prompt_tokens = usage.input_tokens;
      reasoning_start = st->reasoning;
      splitter.emplace(reasoning_start);
      tool_syntax = st->tool_syntax;
      if (tool_syntax != chat::ToolCallSyntax::kNone) tool_stream.emplace(tool_syntax);
      if (stream) {
        streaming = true;
        bool ok = co_await begin_event_stream(ex);
        std::string events = format.stream_start(usage);
        if (ok) ok = co_await ex.write_chunk(std::move(events));
        if (!ok) {
          cancel->store(true);
          co_return;
        }
      }
    } else if (auto* d = std::get_if<Delta>(&*ev)) {
      privacy::WipeOnExit wipe_delta(d->text);
      if (d->text.empty()) continue;
      if (!streaming) {
        text += d->text;
        continue;
      }
      chat::ReasoningSplitter::Parts parts = splitter->push(d->text);
      privacy::wipe_string(parts.reasoning);
      if (parts.content.empty()) continue;
      std::string event = stream_events(std::move(parts.content), /*end=*/false);
      if (event.empty()) continue;
      if (!co_await ex.write_chunk(std::move(event))) {
        cancel->store(true);
        co_return;
      }
    } else if (auto* f = std::get_if<Finished>(&*ev)) {
      runtime::CompletionResult r = std::move(f->result);
      privacy::WipeOnExit wipe_result(r.text);
      wipe_logprobs(f->logprobs);
      if (r.finish == FinishReason::Cancelled && stopping()) {
        Error e(codes::kServiceUnavailable, "the server is shutting down");
        if (!streaming) throw e;
        std::string event = format.stream_error(e);
        co_await ex.write_chunk(std::move(event));
        co_return;  // no end events: the stream did not complete
      }
      if (r.finish == FinishReason::Cancelled) co_return;  // client gone
      const ShownTokenCounts shown =
          shown_token_counts(r.prompt_tokens, r.completion_tokens, cfg_.suppress_token_metrics);
      ex.record().prompt_tokens = shown.prompt;
      ex.record().completion_tokens = shown.completion;
      AnswerUsage usage;
      usage.input_tokens = shown.prompt;
      usage.output_tokens = shown.completion;
      usage.cached_tokens = shown_token_counts(r.cached_tokens, 0, cfg_.suppress_token_metrics).prompt;
      if (!streaming) {
        if (!r.text.empty()) {
          privacy::wipe_string(text);
          text = r.text;
        }
        chat::ReasoningSplitter::Parts parts = chat::ReasoningSplitter::split(text, reasoning_start);
        privacy::wipe_string(parts.reasoning);
        if (tool_syntax != chat::ToolCallSyntax::kNone) {
          chat::ParsedReply reply = chat::parse_tool_calls(parts.content, tool_syntax);
          privacy::wipe_string(parts.content);
          privacy::wipe_string(reply.reasoning);
          parts.content = std::move(reply.content);
          calls = std::move(reply.calls);
          for (auto& c : calls) c.id = new_tool_call_id(tool_syntax);
        }
        HttpResponse res = json_response(format.body(parts.content, calls, r, usage));
        privacy::wipe_string(parts.content);
        co_await ex.respond(std::move(res));
        co_return;
      }
      chat::ReasoningSplitter::Parts rest = splitter->finish();
      privacy::wipe_string(rest.reasoning);
      std::string events = stream_events(std::move(rest.content), /*end=*/true);
      events += format.stream_end(text, calls, r, usage);
      co_await ex.write_chunk(std::move(events));
      co_await ex.end_stream();
      co_return;
    } else if (auto* fl = std::get_if<Failed>(&*ev)) {
      if (!streaming) throw fl->error;
      std::string event = format.stream_error(fl->error);  // headers are out: an error event ends the stream
      co_await ex.write_chunk(std::move(event));
      co_return;
    }
  }
}

}  // namespace a3s::power::server

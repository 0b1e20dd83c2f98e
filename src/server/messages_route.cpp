// POST /v1/messages (Anthropic Messages API) and POST /v1/messages/count_tokens: the conversation is
// rendered by the model's chat template like a chat completion, answered by Api::single_answer in
// Anthropic's shapes: one message object, or a stream of
// message_start, content_block_start, ping, content_block_delta*, content_block_stop, message_delta
// and message_stop events. A reasoning model's thinking is not part of the answer (extended thinking
// is not offered). Errors on these routes have Anthropic's shape (Api::handle). The request text and
// the answer are wiped when the request ends (docs/privacy.md); these responses carry no receipt.
#include <variant>

#include "server/anthropic_request.h"
#include "server/anthropic_response.h"
#include "server/answer_format.h"
#include "server/api.h"
#include "server/api_error.h"
#include "server/generation_job.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

namespace {

AnthropicStop stop_of(const runtime::CompletionResult& r, const std::vector<std::string>& stop_sequences,
                      bool tool_calls) {
  AnthropicStop s;
  if (r.finish == FinishReason::Length) {
    s.reason = "max_tokens";
  } else if (tool_calls) {
    s.reason = "tool_use";
  } else if (r.stop_index >= 0 && static_cast<size_t>(r.stop_index) < stop_sequences.size()) {
    s.reason = "stop_sequence";
    s.sequence = stop_sequences[static_cast<size_t>(r.stop_index)];  // the client's own string
  }
  return s;
}

// An error as the stream's last event (the message a body would carry: 500s say no more than that).
std::string error_event(const Error& e) {
  return sse_typed_event(nlohmann::json::parse(to_anthropic_error(error_response(e)).body));
}

// Parses a body under the Anthropic routes' rules; the parsed JSON is wiped either way.
ParsedMessages parse_wiping(const std::string& raw, bool count_tokens) {  // raw: the body's text
  nlohmann::json body = parse_json_object(raw);
  try {
    ParsedMessages p = parse_anthropic_messages(body, count_tokens, raw);
    privacy::wipe_json(body);
    return p;
  } catch (...) {
    privacy::wipe_json(body);
    throw;
  }
}

}  // namespace

namespace {

// The Messages API's body and events: a text block, then a tool_use block per call. A stream opens
// text block 0 at once; a call closes the open text block, and text after a call opens a new one.
class AnthropicFormat final : public AnswerFormat {
 public:
  AnthropicFormat(std::string id, std::string model, const std::vector<std::string>& stop_sequences)
      : id_(std::move(id)), model_(std::move(model)), stop_sequences_(stop_sequences) {}

  std::string stream_start(const AnswerUsage& usage) override {
    std::string events =
        sse_typed_event(anthropic_message_start(anthropic_message(id_, model_, "", nullptr, usage.input_tokens, 0)));
    events += sse_typed_event(anthropic_block_start());
    events += sse_typed_event(nlohmann::json{{"type", "ping"}});
    return events;
  }

  std::string stream_delta(std::string_view text) override {
    std::string events;
    if (open_text_ < 0) {
      open_text_ = next_index_++;
      nlohmann::json start = anthropic_block_start();
      start["index"] = open_text_;
      events += sse_typed_event(start);
    }
    nlohmann::json e = anthropic_text_delta(text);
    e["index"] = open_text_;
    events += sse_typed_event(e);
    privacy::wipe_json(e);
    return events;
  }

  std::string stream_tool_call(const chat::ToolCall& call, int) override {
    std::string events;
    if (open_text_ >= 0) events += sse_typed_event(anthropic_block_stop(open_text_));
    open_text_ = -1;
    return events + anthropic_tool_use_events(call, next_index_++);
  }

  std::string stream_end(const std::string&, std::span<const chat::ToolCall> calls, const runtime::CompletionResult& r,
                         const AnswerUsage& usage) override {
    std::string events = open_text_ >= 0 ? sse_typed_event(anthropic_block_stop(open_text_)) : std::string();
    events += sse_typed_event(anthropic_message_delta(stop_of(r, stop_sequences_, !calls.empty()), usage.output_tokens));
    events += sse_typed_event(anthropic_message_stop());
    return events;
  }

  std::string stream_error(const Error& e) override { return error_event(e); }

  nlohmann::json body(const std::string& text, std::span<const chat::ToolCall> calls, const runtime::CompletionResult& r,
                      const AnswerUsage& usage) override {
    const AnthropicStop stop = stop_of(r, stop_sequences_, !calls.empty());
    return anthropic_message(id_, model_, text, &stop, usage.input_tokens, usage.output_tokens, calls);
  }

 private:
  int open_text_ = 0;   // the index of the open text block, or -1
  int next_index_ = 1;  // the index of the next block
  std::string id_, model_;
  const std::vector<std::string>& stop_sequences_;  // the request's, which outlives the answer
};

}  // namespace

asio::awaitable<void> Api::messages(Exchange& ex, std::string identity) {
  ParsedMessages p = parse_wiping(ex.request().body, /*count_tokens=*/false);
  if (!registry_->contains(p.request.model)) throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  auto request = std::make_shared<runtime::CompletionRequest>(std::move(p.request));
  request->cache_identity = std::move(identity);
  request->cache_endpoint = "/v1/messages";
  AnthropicFormat format(new_id("msg_"), request->model, request->stop);
  co_await single_answer(ex, request, p.stream, format);
}

asio::awaitable<void> Api::count_tokens(Exchange& ex) {
  ParsedMessages p = parse_wiping(ex.request().body, /*count_tokens=*/true);
  if (!registry_->contains(p.request.model)) throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  using Counted = std::variant<int, ApiError>;
  auto queue = std::make_shared<AsyncQueue<Counted>>(ex.executor());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto request = std::make_shared<runtime::CompletionRequest>(std::move(p.request));
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  // 429 when the queue is full.
  submit_model_job<int>(scheduler_, registry_, request->model, queue, cancel,
                        [request](runtime::Slot&, const std::shared_ptr<const runtime::ModelRuntime>& model) {
                          std::vector<Token> tokens =
                              model->chat_prompt(*request->messages, runtime::chat_prompt_options(*request));
                          const int n = static_cast<int>(tokens.size());
                          privacy::wipe_vector(tokens);
                          return n;
                        });

  std::optional<Counted> ev = co_await queue->pop();
  if (!ev) {
    ex.record().status = ex.record().status ? ex.record().status : 499;  // client gone
    co_return;
  }
  if (auto* err = std::get_if<ApiError>(&*ev)) throw *err;
  const int shown = shown_token_counts(std::get<int>(*ev), 0, cfg_.suppress_token_metrics).prompt;
  HttpResponse res = json_response(nlohmann::json{{"input_tokens", shown}});
  co_await ex.respond(std::move(res));
}

}  // namespace a3s::power::server

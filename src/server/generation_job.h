// One generation as a route sees it: the job that runs run_completion on a scheduler slot, and the
// events it sends back to the exchange's coroutine through an AsyncQueue (started → delta* →
// finished, or failed). Shared by the OpenAI completion routes and the Anthropic Messages route.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "chat/reasoning.h"
#include "chat/tool_calls.h"
#include "crypto/sha256.h"
#include "runtime/completion.h"
#include "runtime/model_registry.h"
#include "runtime/prompt_cache.h"
#include "runtime/scheduler.h"
#include "server/api_error.h"
#include "server/async_queue.h"

namespace a3s::power::server {

// Events of one choice's job, tagged with the choice's index.
struct Started {
  int choice;
  int prompt_tokens;
  crypto::Sha256Digest prompt_sha256;  // tee::prompt_sha256 of the prompt's token ids
  chat::ReasoningStart reasoning;      // chat: where a reasoning model's reply starts
  chat::ToolCallSyntax tool_syntax;    // chat with tools: the syntax of the reply's tool calls
};
struct Delta {
  int choice;
  std::string text;
  std::vector<TokenLogprobs> logprobs;  // the tokens whose text this delta completes (or holds back)
  std::chrono::steady_clock::time_point at;
  bool first;
};
struct Finished {
  int choice;
  runtime::CompletionResult result;
  std::vector<TokenLogprobs> logprobs;  // tokens reported after the last delta
};
struct Failed {
  ApiError error;  // with the request field a template's FieldError names (its param)
};
using GenEvent = std::variant<Started, Delta, Finished, Failed>;

// Zeroes the token pieces (generated text) and empties `v`.
void wipe_logprobs(std::vector<TokenLogprobs>& v);

// Carries one choice's events from the worker thread to the exchange's coroutine. The first token
// is always reported (time to first token), later ones only with text; a raised cancel flag stops
// the generation at its next token.
class QueueSink final : public runtime::CompletionSink {
 public:
  QueueSink(int choice, std::shared_ptr<AsyncQueue<GenEvent>> q, std::shared_ptr<std::atomic<bool>> cancel)
      : choice_(choice), q_(std::move(q)), cancel_(std::move(cancel)) {}
  ~QueueSink() override { wipe_logprobs(pending_); }
  void reasoning(chat::ReasoningStart r) override { reasoning_ = r; }
  void tool_calls(chat::ToolCallSyntax s) override { tool_syntax_ = s; }
  void started(std::span<const Token> prompt) override;
  void logprobs(const TokenLogprobs& lp) override { pending_.push_back(lp); }
  bool delta(std::string_view text) override;
  void finished(const runtime::CompletionResult& r) override;
  void failed(const Error& e) override;

 private:
  int choice_;
  std::shared_ptr<AsyncQueue<GenEvent>> q_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::vector<TokenLogprobs> pending_;
  chat::ReasoningStart reasoning_ = chat::ReasoningStart::kNone;
  chat::ToolCallSyntax tool_syntax_ = chat::ToolCallSyntax::kNone;
  bool first_sent_ = false;
};

// Submits choice `choice` of `request` to the scheduler: the job acquires the model (loading it if
// needed) and runs run_completion on its slot, reporting to a QueueSink on `queue`. Throws the
// scheduler's rate_limited error when the queue is full.
void submit_generation(runtime::Scheduler& scheduler, std::shared_ptr<runtime::ModelRegistry> registry,
                       std::shared_ptr<const runtime::CompletionRequest> request,
                       std::shared_ptr<AsyncQueue<GenEvent>> queue, std::shared_ptr<std::atomic<bool>> cancel,
                       std::shared_ptr<runtime::PromptCache> cache, int choice);

// Work on a slot other than a generation (embeddings, token counts): `fn(slot, model)` runs as a job
// on the scheduler for the model named `model_name` (loaded if needed) and its result — or the
// ApiError it failed with (api_error_of) — goes to `queue`. Throws the scheduler's rate_limited
// error when the queue is full.
template <typename Result, typename Fn>
void submit_model_job(runtime::Scheduler& scheduler, std::shared_ptr<runtime::ModelRegistry> registry,
                      std::string model_name, std::shared_ptr<AsyncQueue<std::variant<Result, ApiError>>> queue,
                      std::shared_ptr<std::atomic<bool>> cancel, Fn fn) {
  runtime::Job job;
  job.cancel = cancel;
  job.run = [registry = std::move(registry), model_name = std::move(model_name), queue,
             fn = std::move(fn)](runtime::Slot& slot) {
    try {
      const std::shared_ptr<const runtime::ModelRuntime> model = registry->acquire(model_name);
      queue->push(fn(slot, model));
    } catch (const Error& e) {
      queue->push(api_error_of(e));
    } catch (const std::bad_alloc&) {
      queue->push(ApiError(codes::kInternal, "out of memory"));
    } catch (const std::exception&) {
      queue->push(ApiError(codes::kInternal, "the request failed"));
    }
  };
  job.reject = [queue](const Error& e) { queue->push(api_error_of(e)); };
  scheduler.submit(std::move(job));
}

}  // namespace a3s::power::server

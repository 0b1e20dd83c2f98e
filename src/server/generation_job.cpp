#include "server/generation_job.h"

#include "attestation/receipt.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

void wipe_logprobs(std::vector<TokenLogprobs>& v) {
  for (TokenLogprobs& t : v) {
    privacy::wipe_string(t.chosen.piece);
    for (auto& e : t.top) privacy::wipe_string(e.piece);
  }
  v.clear();
}

void QueueSink::started(std::span<const Token> prompt) {
  q_->push(Started{choice_, static_cast<int>(prompt.size()), tee::prompt_sha256(prompt), reasoning_, tool_syntax_});
}

bool QueueSink::delta(std::string_view text) {
  if (cancel_->load()) return false;
  if (!first_sent_ || !text.empty()) {
    q_->push(Delta{choice_, std::string(text), std::move(pending_), std::chrono::steady_clock::now(), !first_sent_});
    pending_.clear();
    first_sent_ = true;
  }
  return !cancel_->load();
}

void QueueSink::finished(const runtime::CompletionResult& r) {
  q_->push(Finished{choice_, r, std::move(pending_)});
  pending_.clear();
}

void QueueSink::failed(const Error& e) { q_->push(Failed{api_error_of(e)}); }

void submit_generation(runtime::Scheduler& scheduler, std::shared_ptr<runtime::ModelRegistry> registry,
                       std::shared_ptr<const runtime::CompletionRequest> request,
                       std::shared_ptr<AsyncQueue<GenEvent>> queue, std::shared_ptr<std::atomic<bool>> cancel,
                       std::shared_ptr<runtime::PromptCache> cache, int choice) {
  auto sink = std::make_shared<QueueSink>(choice, std::move(queue), cancel);
  runtime::Job job;
  job.cancel = cancel;
  job.run = [registry = std::move(registry), request = std::move(request), cancel, sink, cache = std::move(cache),
             choice](runtime::Slot& slot) {
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
    runtime::run_completion(slot, model, *request, *cancel, *sink, cache.get(), choice);
  };
  job.reject = [sink](const Error& e) { sink->failed(e); };
  scheduler.submit(std::move(job));
}

}  // namespace a3s::power::server

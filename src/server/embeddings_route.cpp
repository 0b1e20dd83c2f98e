// POST /v1/embeddings: parse, admit as one job on a slot, embed every input there, and answer with
// one JSON document. The inputs, the vectors and the response body are wiped when the request ends
// (docs/privacy.md, "Memory"). Embeddings carry no receipt (docs/receipts.md covers completions).
#include <variant>

#include "server/api.h"
#include "server/api_error.h"
#include "server/async_queue.h"
#include "server/generation_job.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

using EmbedEvent = std::variant<std::shared_ptr<runtime::EmbeddingResult>, ApiError>;

asio::awaitable<void> Api::embeddings(Exchange& ex) {
  nlohmann::json body = parse_json_object(ex.request().body);
  ParsedEmbedding p;
  try {
    p = parse_embedding(body);
  } catch (...) {
    privacy::wipe_json(body);
    throw;
  }
  privacy::wipe_json(body);  // the parsed copy of the request text; p.request wipes its own
  if (!registry_->contains(p.request.model)) {
    throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  }
  auto queue = std::make_shared<AsyncQueue<EmbedEvent>>(ex.executor());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto request = std::make_shared<runtime::EmbeddingRequest>(std::move(p.request));
  request->kv_wait = std::chrono::milliseconds(static_cast<int64_t>(cfg_.queue_timeout_seconds * 1000.0));
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  // 429 when the queue is full.
  submit_model_job<std::shared_ptr<runtime::EmbeddingResult>>(
      scheduler_, registry_, request->model, queue, cancel,
      [request, cancel](runtime::Slot& slot, const std::shared_ptr<const runtime::ModelRuntime>& model) {
        return std::make_shared<runtime::EmbeddingResult>(runtime::run_embeddings(slot, model, *request, *cancel));
      });

  std::optional<EmbedEvent> ev = co_await queue->pop();
  if (!ev) {
    ex.record().status = ex.record().status ? ex.record().status : 499;  // client gone
    co_return;
  }
  if (auto* err = std::get_if<ApiError>(&*ev)) throw *err;
  const std::shared_ptr<runtime::EmbeddingResult> result = std::get<0>(std::move(*ev));
  const int shown = shown_token_counts(result->prompt_tokens, 0, cfg_.suppress_token_metrics).prompt;
  ex.record().prompt_tokens = shown;
  HttpResponse res = json_response(embeddings_response(request->model, result->vectors, p.base64, shown));
  co_await ex.respond(std::move(res));
}

}  // namespace a3s::power::server

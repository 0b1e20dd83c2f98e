// POST /v1/embeddings: parse, admit as one job on a slot, embed every input there, and answer with
// one JSON document. The inputs, the vectors and the response body are wiped when the request ends
// (docs/privacy.md, "Memory"). Embeddings carry no receipt (docs/receipts.md covers completions).
#include <variant>

#include "server/api.h"
#include "server/api_error.h"
#include "server/async_queue.h"
#include "server/openai_request.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "chat/field_error.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

namespace {

using EmbedEvent = std::variant<std::shared_ptr<runtime::EmbeddingResult>, ApiError>;

ApiError api_error_of(const Error& e) {
  const auto* field = dynamic_cast<const chat::FieldError*>(&e);
  return ApiError(e.kind(), e.what(), field != nullptr ? field->param() : std::string());
}

}  // namespace

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
  auto registry = registry_;

  runtime::Job job;
  job.cancel = cancel;
  job.run = [registry, request, cancel, queue](runtime::Slot& slot) {
    try {
      const std::shared_ptr<const runtime::ModelRuntime> model = registry->acquire(request->model);
      queue->push(std::make_shared<runtime::EmbeddingResult>(runtime::run_embeddings(slot, model, *request, *cancel)));
    } catch (const Error& e) {
      queue->push(api_error_of(e));
    } catch (const std::bad_alloc&) {
      queue->push(ApiError(codes::kInternal, "out of memory while embedding"));
    } catch (const std::exception&) {
      queue->push(ApiError(codes::kInternal, "embedding failed"));
    }
  };
  job.reject = [queue](const Error& e) { queue->push(api_error_of(e)); };
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  scheduler_.submit(std::move(job));  // 429 when the queue is full

  std::optional<EmbedEvent> ev = co_await queue->pop();
  if (!ev) {
    ex.record().status = ex.record().status ? ex.record().status : 499;  // client gone
    co_return;
  }
  if (auto* err = std::get_if<ApiError>(&*ev)) throw *err;
  const std::shared_ptr<runtime::EmbeddingResult> result = std::get<0>(std::move(*ev));
  const int shown = shown_token_counts(result->prompt_tokens, 0, cfg_.suppress_token_metrics).prompt;
  ex.record().prompt_tokens = shown;
  nlohmann::json doc = embeddings_response(request->model, result->vectors, p.base64, shown);
  HttpResponse res;
  res.body = json_text(doc);
  privacy::wipe_json(doc);
  co_await ex.respond(std::move(res));  // the HTTP layer wipes the body once it is written
}

}  // namespace a3s::power::server

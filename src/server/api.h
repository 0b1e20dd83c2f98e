// The OpenAI-compatible API: routing, authentication, the per-request log line and metrics, and
// the route handlers (completions, models, pull, attestation, health, metrics).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/thread_pool.hpp>

#include "config/config.h"
#include "server/auth.h"
#include "server/http_server.h"
#include "server/metrics.h"
#include "server/router.h"
#include "runtime/completion.h"
#include "runtime/model_registry.h"
#include "runtime/prompt_cache.h"
#include "runtime/scheduler.h"

namespace a3s::power::server {

class Attestor;
class AnswerFormat;

class Api final : public HttpHandler {
 public:
  // `blocking` runs blocking work (pulls) off the I/O threads.
  Api(const config::Config& cfg, std::shared_ptr<runtime::ModelRegistry> registry,
      runtime::Scheduler& scheduler, asio::thread_pool& blocking);

  asio::awaitable<void> handle(Exchange& ex) override;
  asio::awaitable<void> reject(Exchange& ex, const Error& error) override;

  // Raised at shutdown: /health reports it, cancelled generations report 503.
  void set_stopping() { stopping_ = true; }
  bool stopping() const { return stopping_.load(); }
  Metrics& metrics() { return metrics_; }
  // Enables GET /v1/attestation and the TEE block of /health (tee_mode). Call before serving.
  void set_attestor(std::shared_ptr<Attestor> attestor) { attestor_ = std::move(attestor); }

 private:
  asio::awaitable<void> dispatch(Exchange& ex, const RouteMatch& m);
  // `identity`: the authenticated caller ("" without API keys), the prompt cache's scope.
  asio::awaitable<void> completions(Exchange& ex, bool chat, std::string identity);
  asio::awaitable<void> embeddings(Exchange& ex);
  // The Anthropic Messages API (messages_route.cpp).
  asio::awaitable<void> messages(Exchange& ex, std::string identity);
  asio::awaitable<void> count_tokens(Exchange& ex);
  // The OpenAI Responses API, stateless (responses_route.cpp).
  asio::awaitable<void> responses(Exchange& ex, std::string identity);
  // One generation of `request` answered in `format`, as a body or a stream (single_answer.cpp).
  asio::awaitable<void> single_answer(Exchange& ex, std::shared_ptr<runtime::CompletionRequest> request, bool stream,
                                      AnswerFormat& format);
  asio::awaitable<void> pull(Exchange& ex);
  // details: the models, settings, TEE and privacy parts; false → {"status"} only.
  asio::awaitable<void> health(Exchange& ex, bool details);
  asio::awaitable<void> list_models(Exchange& ex);
  asio::awaitable<void> get_model(Exchange& ex, const std::string& id);
  asio::awaitable<void> delete_model(Exchange& ex, const std::string& id);
  asio::awaitable<void> metrics_text(Exchange& ex);
  asio::awaitable<void> attestation(Exchange& ex);
  nlohmann::json tee_health() const;
  nlohmann::json prompt_cache_health() const;
  void finish_record(Exchange& ex, std::chrono::steady_clock::time_point start);

  const config::Config& cfg_;
  std::shared_ptr<runtime::ModelRegistry> registry_;
  runtime::Scheduler& scheduler_;
  asio::thread_pool& blocking_;
  Authenticator auth_;
  Router router_;
  Metrics metrics_;
  std::shared_ptr<Attestor> attestor_;  // null unless tee_mode
  // The keyed prompt-prefix cache (docs/prompt-cache.md); null when prompt_cache_mb = 0. Shared
  // with the jobs that use it.
  std::shared_ptr<runtime::PromptCache> prompt_cache_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  int64_t started_unix_ = 0;
  std::atomic<bool> stopping_{false};
};

}  // namespace a3s::power::server

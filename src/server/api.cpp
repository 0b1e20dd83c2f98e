#include "server/api.h"

#include <spdlog/spdlog.h>

#include <ctime>

#include "server/anthropic_response.h"
#include "server/api_error.h"
#include "server/attestation.h"
#include "a3s/power/settings.h"
#include "server/openai_response.h"
#include "server/privacy.h"
#include "server/server.h"
#include "privacy/wipe_text.h"

namespace a3s::power::server {

using nlohmann::json;

namespace {
HttpResponse json_response(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.body = json_text(body);
  return r;
}

bool starts_with_v1(const std::string& path) { return path == "/v1" || path.starts_with("/v1/"); }

// The method as logged and counted: one of the standard methods (RFC 9110 section 9), else "other".
const char* shown_method(const std::string& method) {
  static constexpr const char* kKnown[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE",
                                           "PATCH"};
  for (const char* m : kKnown) {
    if (method == m) return m;
  }
  return "other";
}

// The host of a Host header value or of an Origin's authority: "127.0.0.1:8080" → "127.0.0.1",
// "[::1]:8080" → "::1", "localhost" → "localhost".
std::string host_part(std::string_view authority) {
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    return close == std::string_view::npos ? std::string() : std::string(authority.substr(1, close - 1));
  }
  const size_t colon = authority.find(':');
  return std::string(authority.substr(0, colon));
}

// A loopback-only server answers loopback names only: a page on another site cannot reach it from the
// user's browser by DNS rebinding (a foreign Host) or by a cross-site request (a foreign Origin).
bool from_a_foreign_site(const HttpRequest& req) {
  const std::string& host = req.header("host");
  if (!host.empty() && !is_loopback_host(host_part(host))) return true;
  std::string_view origin = req.header("origin");
  if (origin.empty()) return false;
  if (origin == "null") return true;  // sandboxed pages and file:// documents
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return true;
  return !is_loopback_host(host_part(origin.substr(scheme + 3)));
}

bool is_admin_route(RouteId id) { return id == RouteId::PullModel || id == RouteId::DeleteModel; }

// Errors on the Anthropic routes have Anthropic's shape (anthropic_response.h).
HttpResponse shaped_error(const RouteMatch& m, HttpResponse r) {
  const bool anthropic = m.route == "/v1/messages" || m.route == "/v1/messages/count_tokens";
  return anthropic ? to_anthropic_error(std::move(r)) : r;
}
}  // namespace

Api::Api(const config::Config& cfg, std::shared_ptr<runtime::ModelRegistry> registry,
         runtime::Scheduler& scheduler, asio::thread_pool& blocking)
    : cfg_(cfg),
      registry_(std::move(registry)),
      scheduler_(scheduler),
      blocking_(blocking),
      auth_(cfg.api_keys, cfg.admin_api_keys),
      started_unix_(static_cast<int64_t>(std::time(nullptr))) {
  if (cfg.prompt_cache_mb > 0) {
    runtime::PromptCacheOptions o;
    o.max_entries = cfg.prompt_cache_max_entries;
    o.ttl = std::chrono::milliseconds(static_cast<int64_t>(cfg.prompt_cache_ttl_seconds * 1000.0));
    o.max_bytes = cfg.prompt_cache_mb << 20;
    prompt_cache_ = std::make_shared<runtime::PromptCache>(o);
  }
}

void Api::finish_record(Exchange& ex, std::chrono::steady_clock::time_point start) {
  // Token counts in the record are already as shown (completion_route.cpp); rounding again is a no-op
  // and keeps this line and /metrics rounded whatever path filled the record.
  ExchangeRecord& rec = ex.record();
  const ShownTokenCounts shown = shown_token_counts(rec.prompt_tokens, rec.completion_tokens, cfg_.suppress_token_metrics);
  rec.prompt_tokens = shown.prompt;
  rec.completion_tokens = shown.completion;
  const double seconds = shown_duration_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), cfg_.redact_logs);
  const char* method = shown_method(ex.request().method);
  metrics_.record_request(method, rec.route, rec.status, seconds);
  if (rec.prompt_tokens >= 0) metrics_.record_tokens(rec.prompt_tokens, std::max(rec.completion_tokens, 0));
  // One structured line per request: no paths, bodies, headers or user text.
  if (cfg_.redact_logs) {
    spdlog::info("request method={} route={} status={} duration_ms_le={:.0f} prompt_tokens={} completion_tokens={}",
                 method, rec.route, rec.status, seconds * 1000.0, rec.prompt_tokens, rec.completion_tokens);
  } else {
    spdlog::info("request method={} route={} status={} duration_ms={:.1f} prompt_tokens={} completion_tokens={}",
                 method, rec.route, rec.status, seconds * 1000.0, rec.prompt_tokens, rec.completion_tokens);
  }
}

asio::awaitable<void> Api::handle(Exchange& ex) {
  auto start = std::chrono::steady_clock::now();
  const HttpRequest& req = ex.request();
  RouteMatch m = router_.match(req.method, req.path);
  ex.record().route = m.route;
  std::optional<HttpResponse> failure;
  try {
    co_await dispatch(ex, m);
  } catch (const Error& e) {
    if (e.code() == "integrity_error" || e.kind() == codes::kDecryptionFailed) metrics_.record_integrity_failure();
    failure = shaped_error(m, error_response(e));  // keeps an ApiError's param
  } catch (const std::exception&) {
    failure = shaped_error(m, error_response(Error(codes::kInternal, "internal server error")));
  }
  if (failure && !ex.responded()) co_await ex.respond(std::move(*failure));
  if (ex.record().status == 0) ex.record().status = 500;
  finish_record(ex, start);
}

asio::awaitable<void> Api::reject(Exchange& ex, const Error& error) {
  auto start = std::chrono::steady_clock::now();
  const HttpRequest& req = ex.request();
  const RouteMatch m = router_.match(req.method, req.path);
  ex.record().route = m.route;
  int status = error.code() == "header_too_large" ? 431 : http_status_for(error.code());
  co_await ex.respond(shaped_error(m, error_response(status, error.code(), error.what())));
  finish_record(ex, start);
}

asio::awaitable<void> Api::dispatch(Exchange& ex, const RouteMatch& m) {
  const HttpRequest& req = ex.request();
  // A browser reaches a loopback server over TCP only (vsock and Unix sockets are not a page's).
  if (is_loopback_host(cfg_.host) && ex.transport() == Transport::kTcp && from_a_foreign_site(req)) {
    HttpResponse r = shaped_error(m, error_response(403, code_string(codes::kPermissionDenied),
                                                    "a loopback server answers loopback Host and Origin names only"));
    co_await ex.respond(std::move(r));
    co_return;
  }
  const bool found = m.kind == RouteMatch::Kind::Found;
  bool needs_key = auth_.enabled() && (starts_with_v1(req.path) || (m.id == RouteId::Metrics && found &&
                                                                     !cfg_.metrics_public));
  // The key comes as "Authorization: Bearer <key>", or as Anthropic's "x-api-key: <key>".
  std::optional<Principal> principal;
  if (auth_.enabled()) {
    principal = auth_.authenticate(req.header("authorization"));
    if (!principal && !req.header("x-api-key").empty()) {
      std::string bearer = "Bearer " + req.header("x-api-key");
      principal = auth_.authenticate(bearer);
      privacy::wipe_string(bearer);
    }
  }
  if (needs_key && !principal) {
    HttpResponse r = shaped_error(m, error_response(401, code_string(codes::kInvalidApiKey),
                                                    "a valid API key is required (Authorization: Bearer <key>, or "
                                                    "x-api-key: <key>)"));
    r.headers.emplace_back("WWW-Authenticate", "Bearer");
    co_await ex.respond(std::move(r));
    co_return;
  }
  // Pull and unload need the admin scope; without admin keys only a loopback-only server with no keys
  // at all (a developer's machine) allows them.
  if (found && is_admin_route(m.id)) {
    const bool open_dev_server = !auth_.enabled() && loopback_only(cfg_);
    if (!(principal && principal->admin) && !open_dev_server) {
      HttpResponse r = shaped_error(
          m, error_response(403, code_string(codes::kPermissionDenied),
                            auth_.admin_enabled() ? "this route needs an admin key (admin_api_keys)"
                                                  : "this route needs an admin key: configure admin_api_keys"));
      co_await ex.respond(std::move(r));
      co_return;
    }
  }
  if (m.kind == RouteMatch::Kind::NotFound) {
    HttpResponse r = error_response(404, code_string(codes::kNotFound), "no such route");
    co_await ex.respond(std::move(r));
    co_return;
  }
  if (m.kind == RouteMatch::Kind::MethodNotAllowed) {
    HttpResponse r = shaped_error(
        m, error_response(405, code_string(codes::kMethodNotAllowed), "method not allowed on this route"));
    r.headers.emplace_back("Allow", m.allow);
    co_await ex.respond(std::move(r));
    co_return;
  }
  // Named outside the co_await expressions: g++ 12 mishandles temporaries inside them.
  std::string identity = principal ? principal->identity : std::string();
  switch (m.id) {
    case RouteId::Health:
      co_await health(ex, /*details=*/!auth_.enabled() || principal.has_value() || cfg_.health_public_details);
      break;
    case RouteId::Metrics: co_await metrics_text(ex); break;
    case RouteId::ChatCompletions: co_await completions(ex, true, identity); break;
    case RouteId::Completions: co_await completions(ex, false, identity); break;
    case RouteId::Embeddings: co_await embeddings(ex); break;
    case RouteId::Messages: co_await messages(ex, identity); break;
    case RouteId::CountTokens: co_await count_tokens(ex); break;
    case RouteId::Responses: co_await responses(ex, identity); break;
    case RouteId::ListModels: co_await list_models(ex); break;
    case RouteId::GetModel: co_await get_model(ex, m.param); break;
    case RouteId::DeleteModel: co_await delete_model(ex, m.param); break;
    case RouteId::PullModel: co_await pull(ex); break;
    case RouteId::Attestation: co_await attestation(ex); break;
  }
}

namespace {
json model_status_json(const runtime::ModelStatus& s) {
  json j = {{"name", s.name}, {"source", s.source}, {"loaded", s.loaded}};
  if (s.description) {
    const auto& d = *s.description;
    j["n_ctx"] = d.n_ctx;
    j["n_ctx_train"] = d.n_ctx_train;
    j["weights"] = d.weights;
    j["memory_budget_bytes"] = d.memory_budget;
    j["architecture"] = d.architecture;
    j["file_type"] = d.file_type;
    j["size_bytes"] = d.file_size;
    j["n_params"] = d.n_params;
    j["chat_template"] = d.chat_template;
    if (!d.sha256.empty()) {
      j["sha256"] = d.sha256;
      j["signature"] = d.signature;
      if (!d.encrypted_sha256.empty()) j["encrypted_sha256"] = d.encrypted_sha256;
    }
  } else {
    j["n_ctx"] = nullptr;
  }
  if (s.kv_cache) {
    const KvCacheStats& kv = *s.kv_cache;
    j["kv_cache"] = {{"blocks_total", kv.blocks_total},     {"blocks_in_use", kv.blocks_in_use},
                     {"blocks_reserved", kv.blocks_reserved}, {"block_tokens", 32},
                     {"block_bytes", kv.block_bytes},       {"requests_waiting", kv.waiting}};
  }
  if (s.manifest) {
    j["digest"] = s.manifest->digest;
    if (!s.description) {
      j["architecture"] = s.manifest->architecture;
      j["file_type"] = s.manifest->quantization;
      j["size_bytes"] = s.manifest->size;
    }
  }
  return j;
}

json model_object(const runtime::ModelStatus& s, int64_t created) {
  return {{"id", s.name}, {"object", "model"}, {"created", created}, {"owned_by", "a3s-power"},
          {"loaded", s.loaded}};
}
}  // namespace

asio::awaitable<void> Api::health(Exchange& ex, bool details) {
  if (!details) {
    // With api_keys, an unauthenticated caller learns whether the server is up, nothing else.
    HttpResponse r = json_response(stopping_ ? 503 : 200, json{{"status", stopping_ ? "shutting_down" : "ok"}});
    co_await ex.respond(std::move(r));
    co_return;
  }
  json models = json::array();
  for (const auto& s : registry_->list()) {
    json m = model_status_json(s);
    // Blocks in use track token counts (32 positions a block): not under suppress_token_metrics.
    if (cfg_.suppress_token_metrics && m.contains("kv_cache")) {
      m["kv_cache"].erase("blocks_in_use");
      m["kv_cache"].erase("blocks_reserved");
    }
    models.push_back(std::move(m));
  }
  double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  json j = {{"status", stopping_ ? "shutting_down" : "ok"},
            {"version", A3S_POWER_VERSION_STRING},
            {"uptime_seconds", static_cast<int64_t>(uptime)},
            {"models", models},
            {"settings", cfg_.effective_json()},
            {"tee", tee_health()},
            {"prompt_cache", prompt_cache_health()},
            {"privacy", {{"redact_logs", cfg_.redact_logs}, {"suppress_token_metrics", cfg_.suppress_token_metrics}}}};
  co_await ex.respond(json_response(stopping_ ? 503 : 200, j));
}

// {enabled, type, policy, verifiable, models_verified}: models_verified counts the loaded models
// whose bytes were measured at load and matched their pin or signature.
json Api::tee_health() const {
  if (!attestor_) return {{"enabled", false}, {"type", "none"}, {"policy", nullptr}, {"verifiable", false},
                          {"models_verified", 0}};
  int verified = 0;
  for (const auto& s : registry_->list()) {
    if (!s.description || s.description->sha256.empty()) continue;
    if (s.description->signature == "verified" || cfg_.model_hashes.count(s.name) > 0) ++verified;
  }
  return {{"enabled", true},
          {"type", attestor_->tee_type()},
          {"provider", attestor_->provider_name()},
          {"policy", to_string(attestor_->policy())},
          {"verifiable", attestor_->verifiable()},
          {"models_verified", verified}};
}

// {supported, max_entries, ttl_seconds, max_mb}: what a request with prompt_cache_key gets.
json Api::prompt_cache_health() const {
  if (!prompt_cache_) return {{"supported", false}, {"max_entries", 0}, {"ttl_seconds", 0}, {"max_mb", 0}};
  return {{"supported", true},
          {"max_entries", cfg_.prompt_cache_max_entries},
          {"ttl_seconds", cfg_.prompt_cache_ttl_seconds},
          {"max_mb", cfg_.prompt_cache_mb}};
}

asio::awaitable<void> Api::metrics_text(Exchange& ex) {
  GaugeSnapshot g;
  runtime::PromptCacheStats cache_stats;
  if (prompt_cache_) {
    cache_stats = prompt_cache_->stats();
    g.prompt_cache = &cache_stats;
  }
  g.exact_sizes = !cfg_.suppress_token_metrics;
  g.active_requests = scheduler_.active();
  g.queued_requests = scheduler_.queued();
  g.models_loaded = registry_->loaded_count();
  for (const auto& s : registry_->list())
    if (s.kv_cache) g.kv_caches.emplace_back(s.name, *s.kv_cache);
  g.slots = scheduler_.slots();
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = metrics_.render(g);
  co_await ex.respond(std::move(r));
}

asio::awaitable<void> Api::list_models(Exchange& ex) {
  json data = json::array();
  for (const auto& s : registry_->list()) data.push_back(model_object(s, started_unix_));
  // Braced temporaries with string literals must not appear inside a co_await expression (g++ 12).
  HttpResponse r = json_response(200, json{{"object", "list"}, {"data", data}});
  co_await ex.respond(std::move(r));
}

asio::awaitable<void> Api::get_model(Exchange& ex, const std::string& id) {
  auto s = registry_->status(id);
  if (!s) throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  co_await ex.respond(json_response(200, model_object(*s, started_unix_)));
}

asio::awaitable<void> Api::delete_model(Exchange& ex, const std::string& id) {
  // Unloads only: the store's files stay (`a3s-power rm` removes them).
  switch (registry_->unload(id)) {
    case runtime::ModelRegistry::UnloadResult::kNotFound:
      throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
    case runtime::ModelRegistry::UnloadResult::kConfigured:
      throw ApiError(codes::kPermissionDenied, "a configured model cannot be unloaded through the API", "model");
    case runtime::ModelRegistry::UnloadResult::kUnloaded: break;
  }
  scheduler_.release_unloaded();
  spdlog::info("model unloaded");
  HttpResponse r = json_response(200, json{{"id", id}, {"object", "model"}, {"deleted", true}});
  co_await ex.respond(std::move(r));
}

}  // namespace a3s::power::server

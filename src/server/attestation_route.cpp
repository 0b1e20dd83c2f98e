// GET /v1/attestation?nonce=<64 hex>&model=<name>: fresh evidence binding the client's nonce and the
// claims about the served model (server/attestation.h). `model` may be left out when exactly one model
// is served. Errors: 503 tee_not_enabled (tee_mode off), 400 for a missing or malformed nonce, an
// unknown query parameter or a missing model, 404 for an unknown model, 500 attestation_failed.
// Requires an API key when api_keys are configured (like every /v1 route). Messages never echo the
// query. Over RA-TLS the claims also bind the connection's certificate key (claims.tls.spki_sha256).
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "server/api.h"
#include "server/api_error.h"
#include "server/attestation.h"
#include "server/openai_response.h"
#include "attestation/report_data.h"

namespace a3s::power::server {

namespace {
const std::string kNonceRule = "'nonce' must be 64 hex characters (32 random bytes chosen by the client)";
// Runs on the blocking pool. A function, not a capturing lambda: a coroutine's parameters are copied
// into its frame, a lambda's captures are not (the lambda object is gone when the coroutine resumes).
asio::awaitable<nlohmann::json> attest_blocking(std::shared_ptr<runtime::ModelRegistry> registry,
                                                std::shared_ptr<Attestor> attestor, std::string model,
                                                tee::Nonce nonce,
                                                std::optional<crypto::Sha256Digest> tls_spki_sha256) {
  auto runtime = registry->acquire(model);
  co_return attestor->attest(nonce, runtime->description(), tls_spki_sha256);
}
}  // namespace

asio::awaitable<void> Api::attestation(Exchange& ex) {
  if (!attestor_) {
    throw ApiError(codes::kTeeNotEnabled, "attestation is not available: the server does not run with tee_mode = true");
  }
  const auto query = parse_query(ex.request().query);
  if (!query) throw ApiError(codes::kInvalidRequest, "the query string is malformed");
  for (const auto& [name, value] : *query) {
    if (name != "nonce" && name != "model") {
      throw ApiError(codes::kInvalidRequest, "unknown query parameter; accepted: nonce, model");
    }
  }
  auto nonce_it = query->find("nonce");
  if (nonce_it == query->end()) throw ApiError(codes::kInvalidRequest, kNonceRule, "nonce");
  tee::Nonce nonce{};
  try {
    nonce = tee::parse_nonce(nonce_it->second);
  } catch (const Error&) {
    throw ApiError(codes::kInvalidRequest, kNonceRule, "nonce");
  }
  std::string model;
  if (auto it = query->find("model"); it != query->end()) {
    model = it->second;
  } else {
    const auto all = registry_->list();
    if (all.size() != 1) throw ApiError(codes::kInvalidRequest, "'model' is required when several models are served", "model");
    model = all.front().name;
  }
  if (model.empty() || !registry_->contains(model)) {
    throw ApiError(codes::kModelNotFound, "the model does not exist", "model");
  }

  // Loading a store model and talking to the platform block: off the I/O threads.
  nlohmann::json body;
  try {
    body = co_await asio::co_spawn(
        blocking_, attest_blocking(registry_, attestor_, model, nonce, ex.tls_spki_sha256()), asio::use_awaitable);
  } catch (const Error& e) {
    if (e.kind() != codes::kModelNotFound) metrics_.record_attestation(false);
    throw;
  } catch (...) {
    metrics_.record_attestation(false);
    throw;
  }
  metrics_.record_attestation(true);
  HttpResponse r;
  r.status = 200;
  r.body = json_text(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  co_await ex.respond(std::move(r));
}

}  // namespace a3s::power::server

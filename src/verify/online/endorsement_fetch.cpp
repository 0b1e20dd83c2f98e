#include "verify/online/endorsement_fetch.h"

#include "a3s/power/error.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"
#include "http_client/server_url.h"

namespace a3s::power::verify::online {

namespace {

client::ServerUrl parse_base(const std::string& base) {
  try {
    client::ServerUrl url = client::ServerUrl::parse(base);
    if (url.is_vsock()) throw Error(codes::kInvalidArgument, "invalid --url: the scheme must be http or https");
    return url;
  } catch (const Error& e) {
    std::string message = e.what();
    if (message.rfind("invalid --url: ", 0) == 0) message.erase(0, 15);
    throw Error(codes::kInvalidArgument, "invalid endorsement service URL (--kds-url / --pcs-url): " + message);
  }
}

}  // namespace

std::string endorsement_url(const std::string& base, const std::string& path_and_query) {
  return parse_base(base).endpoint(path_and_query);
}

CachedResponse fetch_endorsement(const std::string& base, const std::string& path_and_query,
                                 const FetchContext& context, const ExpiryOf& expiry) {
  client::ClientOptions options{parse_base(base), ""};
  options.connect_timeout_ms = kFetchConnectTimeoutMs;
  options.request_timeout_ms = kFetchRequestTimeoutMs;
  const std::string url = options.url.endpoint(path_and_query);
  if (context.used_urls != nullptr) context.used_urls->push_back(url);
  if (context.cache != nullptr) {
    if (auto hit = context.cache->lookup(url, context.now); hit && !hit->body.empty()) return std::move(*hit);
  }
  const std::string what = "GET " + url;
  client::HttpResponse response;
  try {
    if (context.network_requests != nullptr) ++*context.network_requests;
    client::HttpClient http(options);
    response = http.get(path_and_query);
  } catch (const client::ServerError& e) {
    throw Error(codes::kIo, what + ": " + e.what());
  } catch (const Error& e) {
    if (e.kind() == codes::kInvalidArgument) throw;
    std::string message = e.what();
    // The transport's hint is about the A3S Power server, not an endorsement service.
    if (const auto hint = message.find(" (is `a3s-power serve` running?)"); hint != std::string::npos)
      message.erase(hint);
    throw Error(codes::kIo, what + ": " + message);
  }
  if (response.status != 200)
    throw Error(codes::kIo, what + ": HTTP " + std::to_string(response.status) + " (endorsement not available)");
  // An empty body would read as "not given" downstream (e.g. no CRL to check): it is a failure.
  if (response.body.empty()) throw Error(codes::kIo, what + ": empty answer (endorsement not available)");
  CachedResponse r{std::move(response.body), std::move(response.headers), std::nullopt};
  r.expires = expiry ? expiry(r) : std::nullopt;
  const bool cacheable = !expiry || (r.expires && *r.expires > context.now);
  if (context.cache != nullptr && cacheable) context.cache->store(url, r);
  return r;
}

}  // namespace a3s::power::verify::online

#include "a3s-power-verify/attestation_fetch.h"

#include "a3s/power/error.h"
#include "base/percent_encode.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"
#include "http_client/server_url.h"

namespace a3s::power::verify::cli {

std::string fetch_attestation(const AttestationRequest& request) {
  client::ClientOptions options{client::ServerUrl::parse(request.url), request.api_key};
  options.connect_timeout_ms = kConnectTimeoutMs;
  options.request_timeout_ms = kRequestTimeoutMs;
  const std::string what = "GET " + options.url.endpoint("/v1/attestation");
  const std::string path =
      "/v1/attestation?nonce=" + request.nonce + "&model=" + percent_encode(request.model);
  client::HttpResponse response;
  try {
    client::HttpClient http(options);
    response = http.get(path);
  } catch (const client::ServerError& e) {
    throw Error(codes::kIo, what + ": " + e.what());
  } catch (const Error& e) {
    if (e.kind() == codes::kInvalidArgument) throw;
    throw Error(codes::kIo, what + ": " + e.what());
  }
  if (response.status == 200) return std::move(response.body);
  const client::ServerError e = client::server_error_from_response(response.status, response.body);
  std::string line = what + ": HTTP " + std::to_string(response.status);
  if (!e.server_code().empty()) line += " (" + e.server_code() + ")";
  line += ": ";
  line += e.what();
  throw Error(codes::kIo, line);
}

}  // namespace a3s::power::verify::cli

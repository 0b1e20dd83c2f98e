#include "a3s-power-verify/ratls_fetch.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "a3s/power/error.h"
#include "base/percent_encode.h"
#include "http_client/curl_handle.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"
#include "http_client/server_url.h"

namespace a3s::power::verify::cli {
namespace {

struct Transfer {
  CURL* curl = nullptr;
  std::string body;
  std::string certificate_der;
  bool too_large = false;
  bool wrong_backend = false;
};

// The peer certificate of the connection that is delivering this answer.
void capture_certificate(Transfer& t) {
  if (!t.certificate_der.empty() || t.wrong_backend) return;
  curl_tlssessioninfo* info = nullptr;
  if (curl_easy_getinfo(t.curl, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == nullptr ||
      info->backend != CURLSSLBACKEND_OPENSSL || info->internals == nullptr) {
    t.wrong_backend = true;
    return;
  }
  X509* cert = SSL_get0_peer_certificate(static_cast<SSL*>(info->internals));
  if (cert == nullptr) return;
  unsigned char* der = nullptr;
  const int n = i2d_X509(cert, &der);
  if (n <= 0) return;
  t.certificate_der.assign(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
  OPENSSL_free(der);
}

size_t on_header(char*, size_t size, size_t count, void* user) {
  capture_certificate(*static_cast<Transfer*>(user));
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  capture_certificate(t);
  const size_t n = size * count;
  if (t.body.size() + n > client::HttpClient::kMaxBodyBytes) {
    t.too_large = true;
    return 0;
  }
  t.body.append(data, n);
  return n;
}

}  // namespace

RatlsAttestation fetch_ratls_attestation(const AttestationRequest& request) {
  const client::ServerUrl url = client::ServerUrl::parse(request.url);
  if (url.scheme() != "https")
    throw Error(codes::kInvalidArgument, "--ratls needs an https:// URL (the server's RA-TLS port)");
  for (const unsigned char c : request.api_key)
    if (c < 0x20 || c == 0x7f)
      throw Error(codes::kInvalidArgument, "the API key contains control characters");
  const std::string what = "GET " + url.endpoint("/v1/attestation");
  const std::string target =
      url.endpoint("/v1/attestation?nonce=" + request.nonce + "&model=" + percent_encode(request.model));

  client::curl_global_init_once();
  client::CurlEasy curl = client::make_curl_easy();
  CURL* c = curl.get();
  client::CurlHeaders headers;
  headers.append("Accept: application/json");
  if (!request.api_key.empty()) headers.append("Authorization: Bearer " + request.api_key);
  Transfer t;
  t.curl = c;
  char errbuf[CURL_ERROR_SIZE] = {0};
  client::TransferOptions o;
  o.url = target;
  o.tls_version = CURL_SSLVERSION_TLSv1_3;
  // Trust comes from the certificate's evidence, checked by the caller against this very key.
  o.verify_peer = false;
  o.fresh_connection = true;
  o.no_proxy = client::is_loopback_host(url.host());
  o.connect_timeout_ms = kConnectTimeoutMs;
  o.timeout_ms = kRequestTimeoutMs;
  o.user_agent = "a3s-power-verify";
  o.headers = &headers;
  client::set_transfer_options(c, o);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  client::set_receivers(c, on_header, on_body, &t);
  const CURLcode rc = curl_easy_perform(c);
  if (t.wrong_backend)
    throw Error(codes::kIo, what + ": libcurl does not use OpenSSL; the peer certificate is unavailable");
  if (t.too_large) throw Error(codes::kIo, what + ": the server's answer is too large");
  if (rc != CURLE_OK)
    throw Error(codes::kIo,
                what + ": " + client::one_line(errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc), 200));
  if (t.certificate_der.empty()) throw Error(codes::kIo, what + ": the server presented no certificate");
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) {
    const client::ServerError e = client::server_error_from_response(static_cast<int>(status), t.body);
    std::string line = what + ": HTTP " + std::to_string(status);
    if (!e.server_code().empty()) line += " (" + e.server_code() + ")";
    throw Error(codes::kIo, line + ": " + e.what());
  }
  return RatlsAttestation{std::move(t.certificate_der), std::move(t.body)};
}

}  // namespace a3s::power::verify::cli

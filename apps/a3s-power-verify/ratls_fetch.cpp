#include "a3s-power-verify/ratls_fetch.h"

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "a3s/power/error.h"
#include "base/percent_encode.h"
#include "crypto/base64.h"
#include "crypto/openssl.h"
#include "http_client/curl_handle.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"
#include "http_client/server_route.h"
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

// The options both connections share: TLS 1.3, a fresh connection, no CA or host name check; the URL
// of `path_and_query` through `route` (vsock: a fresh vsock connection through the route's bridge).
client::TransferOptions ratls_options(client::ServerRoute& route, std::string_view path_and_query) {
  client::TransferOptions o;
  o.tls_version = CURL_SSLVERSION_TLSv1_3;
  // Trust comes from the certificate's evidence, checked by the caller against this very key.
  o.verify_peer = false;
  o.fresh_connection = true;
  o.no_proxy = client::is_loopback_host(route.url().host());
  o.connect_timeout_ms = kConnectTimeoutMs;
  o.timeout_ms = kRequestTimeoutMs;
  o.user_agent = "a3s-power-verify";
  route.apply(o, path_and_query);
  return o;
}

// The route of an RA-TLS URL: https://, or vsock:// (TLS over the vsock listener).
client::ServerRoute ratls_route(const std::string& text) {
  client::ServerUrl url = client::ServerUrl::parse(text);
  if (url.scheme() != "https" && !url.is_vsock())
    throw Error(codes::kInvalidArgument,
                "--ratls needs an https:// URL (the server's RA-TLS port) or a vsock:// URL (its vsock port)");
  return client::ServerRoute(std::move(url), /*tls=*/true, kConnectTimeoutMs);
}

// The leaf certificate (DER) of a finished handshake, from libcurl's certificate information
// (CURLOPT_CERTINFO: each certificate's "Cert:" PEM, leaf first); "" when there is none.
std::string leaf_from_certinfo(CURL* c) {
  curl_certinfo* info = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_CERTINFO, &info) != CURLE_OK || info == nullptr || info->num_of_certs < 1)
    return {};
  constexpr std::string_view kCert = "Cert:";
  for (curl_slist* field = info->certinfo[0]; field != nullptr; field = field->next) {
    const std::string_view text(field->data);
    if (text.substr(0, kCert.size()) != kCert) continue;
    const std::string_view pem = text.substr(kCert.size());
    crypto::BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio) return {};
    crypto::X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) return {};
    unsigned char* der = nullptr;
    const int n = i2d_X509(cert.get(), &der);
    if (n <= 0) return {};
    std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(n));
    OPENSSL_free(der);
    return out;
  }
  return {};
}

[[noreturn]] void throw_transfer(const std::string& what, CURLcode rc, const char* errbuf, client::ServerRoute& route) {
  // vsock: a connection the bridge could not make reaches libcurl as one closed at once.
  if (const std::string why = route.take_connect_error(); !why.empty()) throw Error(codes::kIo, what + ": " + why);
  if (rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH)
    throw Error(codes::kIo, what + ": the server's TLS key is not the one its RA-TLS certificate was verified "
                                   "for; nothing was sent");
  throw Error(codes::kIo,
              what + ": " + client::one_line(errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc), 200));
}

}  // namespace

std::string fetch_ratls_certificate(const std::string& url_text) {
  client::ServerRoute route = ratls_route(url_text);
  const std::string what = "TLS handshake with " + route.url().display();
  client::curl_global_init_once();
  client::CurlEasy curl = client::make_curl_easy();
  CURL* c = curl.get();
  char errbuf[CURL_ERROR_SIZE] = {0};
  client::TransferOptions o;
  try {
    o = ratls_options(route, "/");
  } catch (const Error& e) {
    throw Error(codes::kIo, what + ": " + e.what());
  }
  client::set_transfer_options(c, o);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);  // the handshake, then stop: no request is written
  curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) throw_transfer(what, rc, errbuf, route);
  std::string der = leaf_from_certinfo(c);
  if (der.empty()) throw Error(codes::kIo, what + ": the server presented no certificate");
  return der;
}

RatlsAttestation fetch_ratls_attestation(const AttestationRequest& request,
                                         const std::array<uint8_t, 32>& pinned_spki_sha256) {
  client::ServerRoute route = ratls_route(request.url);
  for (const unsigned char c : request.api_key)
    if (c < 0x20 || c == 0x7f)
      throw Error(codes::kInvalidArgument, "the API key contains control characters");
  const std::string what = "GET " + route.url().endpoint("/v1/attestation");
  const std::string target = "/v1/attestation?nonce=" + request.nonce + "&model=" + percent_encode(request.model);

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
  try {
    o = ratls_options(route, target);
  } catch (const Error& e) {
    throw Error(codes::kIo, what + ": " + e.what());
  }
  o.headers = &headers;
  o.pinned_public_key = "sha256//" + crypto::base64_encode(pinned_spki_sha256);
  client::set_transfer_options(c, o);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  client::set_receivers(c, on_header, on_body, &t);
  const CURLcode rc = curl_easy_perform(c);
  if (t.wrong_backend)
    throw Error(codes::kIo, what + ": libcurl does not use OpenSSL; the peer certificate is unavailable");
  if (t.too_large) throw Error(codes::kIo, what + ": the server's answer is too large");
  if (rc != CURLE_OK) throw_transfer(what, rc, errbuf, route);
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

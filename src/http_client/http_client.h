// A small HTTP/1.1 client for the A3S Power API on libcurl: JSON GET, and JSON POST whose answer is
// read as a Server-Sent Events stream.
//
// Security: TLS peer and host verification are always on (only an RA-TLS key pin, pinned_spki,
// replaces them, with a stricter check); redirects
// are not followed (an Authorization header never goes to another host); only http and https are
// spoken, plain http only to loopback hosts (see server_url.h). The API key is sent as
// "Authorization: Bearer <key>" and never appears in errors.
//
// vsock URLs (server_route.h): TLS with pinned_spki (RA-TLS), else plain HTTP, which is accepted to
// CID 1 only (this machine's vsock loopback; other CIDs are reached through the host).
//
// Errors (see server_error.h): Error(codes::kServerUnreachable) when no connection could be made
// (refused, unknown host, connect timeout, TLS failure); ServerError ("server_error") for an HTTP
// error status (message from the OpenAI error body), a broken connection, an oversized or
// malformed answer; Error(codes::kInvalidArgument) for an API key with control characters or an
// unreadable CA file.
//
// One HttpClient is one connection (kept alive between requests); not thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_client/server_url.h"
#include "http_client/sse_parser.h"

namespace a3s::power::client {

struct ClientOptions {
  ServerUrl url;
  std::string api_key;               // "" → no Authorization header
  long connect_timeout_ms = 10'000;  // TCP + TLS handshake
  long request_timeout_ms = 60'000;  // whole request, for non-streaming calls (streams: none)
  // PEM file of the CA certificates to trust for https instead of the system store (e.g. a
  // private CA); "" → the system store. Verification itself can never be turned off.
  std::string ca_file{};
  // RA-TLS pin (docs/ra-tls.md): "sha256//<base64 of SHA-256 of the server key's DER
  // SubjectPublicKeyInfo>", the key a3s-power-verify verified. Set: https only, the peer must present
  // exactly that key (checked in the TLS handshake, before the API key or any request byte is sent),
  // and it replaces the CA check (RA-TLS certificates are self-signed; their trust is the evidence).
  std::string pinned_spki{};
};

struct HttpResponse {
  int status = 0;
  std::string content_type;  // as sent, "" if none
  std::string body;
  // get() only: the response header fields, names lowercased, values without surrounding blanks, in
  // the order received (a repeated field appears once per line).
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of the first header field named `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

enum class StreamEnd {
  Closed,     // the server ended the response
  Stopped,    // the event handler returned false (the connection is dropped)
  Cancelled,  // *cancel became true (checked while waiting for data, at least once a second)
};

class HttpClient {
 public:
  // Largest non-streaming body accepted (larger → ServerError).
  static constexpr std::size_t kMaxBodyBytes = 16u << 20;

  // Without libcurl in the build (http_client_built.h) this throws Error(codes::kNotBuilt).
  explicit HttpClient(ClientOptions opts);
  ~HttpClient();
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;

  const ServerUrl& url() const { return opts_.url; }

  // GET `path` (e.g. "/health"); any status is returned as is.
  HttpResponse get(std::string_view path);
  // GET `path` and parse the JSON body of a 2xx answer; other statuses throw ServerError.
  nlohmann::json get_json(std::string_view path);

  // POST `body` as JSON to `path` with "Accept: text/event-stream" and hand every event of the
  // 2xx event-stream answer to `on_event` as it arrives (return false to stop reading). A non-2xx
  // answer throws the ServerError of its body; a 2xx answer that is not an event stream throws
  // ServerError too (its error body if it has one). Exceptions from `on_event` propagate.
  StreamEnd post_stream(std::string_view path, const nlohmann::json& body,
                        const std::function<bool(const SseEvent&)>& on_event,
                        const std::atomic<bool>* cancel = nullptr);

 private:
  struct Transport;  // the libcurl handle and the route to the server (http_client.cpp)

  ClientOptions opts_;
  std::unique_ptr<Transport> transport_;
};

}  // namespace a3s::power::client

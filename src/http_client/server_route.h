// How a client's transfers reach the server of a --url (server_url.h): http(s) URLs directly, vsock
// URLs (docs/ra-tls.md "vsock") over an AF_VSOCK connection the client makes itself and hands to
// libcurl through a StreamBridge (stream_bridge.h: libcurl has no AF_VSOCK).
//
// For vsock, libcurl requests "http://vsock-CID/PREFIX/PATH" ("https://…" with TLS): the host name is
// never resolved (libcurl connects to the bridge's socket); it names the vsock address in the Host
// header and TLS SNI. TLS over vsock is RA-TLS only (the certificate names no host; its trust is its
// evidence), so the caller pins the key (CURLOPT_PINNEDPUBLICKEY) and turns the CA check off.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http_client/curl_handle.h"
#include "http_client/server_url.h"
#include "http_client/stream_bridge.h"

namespace a3s::power::client {

// Connects an AF_VSOCK stream socket to cid:port within timeout_ms (> 0; the socket is blocking on
// return). Throws Error(codes::kServerUnreachable) naming vsock://CID:PORT and the reason (the kernel
// has no vsock transport, refused, timed out, …).
int connect_vsock(uint32_t cid, uint32_t port, long timeout_ms);

class ServerRoute {
 public:
  // tls: the transfers speak TLS (https URLs always do). connect_timeout_ms: the vsock connection's.
  ServerRoute(ServerUrl url, bool tls, long connect_timeout_ms);
  ~ServerRoute();
  ServerRoute(ServerRoute&&) noexcept;
  ServerRoute& operator=(ServerRoute&&) noexcept;

  const ServerUrl& url() const { return url_; }

  // Sets o.url to the URL libcurl requests for `path_and_query` (an API path, e.g. "/v1/models"), and
  // for vsock o.abstract_unix_socket (the bridge) and o.no_proxy. The first vsock call connects: throws
  // Error(codes::kServerUnreachable) (connect_vsock) when the server cannot be reached.
  void apply(TransferOptions& o, std::string_view path_and_query);

  // Why the last vsock connection libcurl asked for could not be made ("" if none failed): the reason
  // behind a connection that closed before any answer.
  std::string take_connect_error();

 private:
  ServerUrl url_;
  bool tls_;
  long connect_timeout_ms_;
  std::unique_ptr<StreamBridge> bridge_;
};

}  // namespace a3s::power::client
